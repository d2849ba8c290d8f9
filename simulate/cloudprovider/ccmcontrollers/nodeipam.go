package ccmcontrollers

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/app/config"
	genericcontrollermanager "k8s.io/controller-manager/app"
	"k8s.io/controller-manager/controller"
	"k8s.io/klog/v2"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/provider"
)

// NodeIPAMController is the canonical name of kube-controller-manager's
// node IPAM controller (1.28 on); the cloud's takes the manager's name for it
// so leader migration can hand it over.
const NodeIPAMController = "node-ipam-controller"

// nodeIPAMConstructor registers the cloud-allocated node IPAM controller:
// pod ranges come from the simulated cloud (which adopts the ranges
// kube-controller-manager gave earlier nodes), as a cloud with alias ranges
// does. Upstream's manager has it off by default (--controllers=*,<name> turns
// it on); a provider that disables nothing runs it under "*" (Controllers).
func nodeIPAMConstructor() app.ControllerInitFuncConstructor {
	return app.ControllerInitFuncConstructor{
		InitContext: app.ControllerInitContext{ClientName: "node-ipam-controller"},
		Constructor: func(ic app.ControllerInitContext, cfg *config.CompletedConfig, cloud cloudprovider.Interface) app.InitFunc {
			return func(ctx context.Context, cc genericcontrollermanager.ControllerContext) (controller.Interface, bool, error) {
				return startNodeIPAM(ctx, ic, cfg, cloud, cc)
			}
		},
	}
}

func startNodeIPAM(ctx context.Context, ic app.ControllerInitContext, cfg *config.CompletedConfig, cloud cloudprovider.Interface, cc genericcontrollermanager.ControllerContext) (controller.Interface, bool, error) {
	shared := cfg.ComponentConfig.KubeCloudShared
	if !shared.AllocateNodeCIDRs {
		klog.Info("node-ipam-controller: --allocate-node-cidrs is false, not starting")
		return nil, false, nil
	}
	sim, ok := cloud.(*provider.Cloud)
	if !ok {
		return nil, false, fmt.Errorf("node-ipam-controller needs the simulated cloud, not %T", cloud)
	}
	c := &nodeIPAM{
		client:      cfg.ClientBuilder.ClientOrDie(ic.ClientName),
		cloud:       sim.API(),
		clusterCIDR: shared.ClusterCIDR,
		mask:        24,
		// The untyped queue: this package builds against k8s.io 0.26 to 0.31.
		queue: workqueue.NewRateLimitingQueue(workqueue.DefaultControllerRateLimiter()), //nolint:staticcheck

	}
	informer := cc.InformerFactory.Core().V1().Nodes()
	c.lister = informer.Lister().Get
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, n any) { c.enqueue(n) },
	})
	if err != nil {
		return nil, false, err
	}
	go c.run(ctx, informer.Informer().HasSynced)
	return nil, true, nil
}

type nodeIPAM struct {
	client      kubernetes.Interface
	cloud       *api.Client
	lister      func(string) (*v1.Node, error)
	clusterCIDR string
	mask        int
	queue       workqueue.RateLimitingInterface //nolint:staticcheck
}

func (c *nodeIPAM) enqueue(obj any) {
	if n, ok := obj.(*v1.Node); ok {
		c.queue.Add(n.Name)
	}
}

func (c *nodeIPAM) run(ctx context.Context, synced cache.InformerSynced) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	klog.Info("Starting cloud node IPAM controller")
	if !cache.WaitForNamedCacheSync("node-ipam", ctx.Done(), synced) {
		return
	}
	go wait.UntilWithContext(ctx, c.worker, time.Second)
	<-ctx.Done()
}

func (c *nodeIPAM) worker(ctx context.Context) {
	for {
		item, quit := c.queue.Get()
		if quit {
			return
		}
		name := item.(string)
		if err := c.sync(ctx, name); err != nil {
			klog.Errorf("node-ipam-controller: node %s: %v", name, err)
			c.queue.AddRateLimited(name)
		} else {
			c.queue.Forget(name)
		}
		c.queue.Done(name)
	}
}

// sync gives a node without a pod range the cloud's, and registers a range
// a node already has with the cloud so it is never given out twice.
func (c *nodeIPAM) sync(ctx context.Context, name string) error {
	node, err := c.lister(name)
	if err != nil {
		return nil // deleted
	}
	req := api.PodCIDRRequest{ClusterCIDR: c.clusterCIDR, MaskSize: c.mask, Adopt: node.Spec.PodCIDR}
	cidr, err := c.cloud.AllocatePodCIDR(ctx, NodeIPAMController, name, req)
	if err != nil {
		return err
	}
	if node.Spec.PodCIDR != "" {
		if node.Spec.PodCIDR != cidr {
			klog.Warningf("node-ipam-controller: node %s has %s but the cloud holds %s for it", name, node.Spec.PodCIDR, cidr)
		}
		return nil
	}
	patch := fmt.Sprintf(`{"spec":{"podCIDR":%q,"podCIDRs":[%q]}}`, cidr, cidr)
	if _, err := c.client.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("setting pod range %s: %w", cidr, err)
	}
	klog.Infof("node-ipam-controller: node %s gets pod range %s from the cloud", name, cidr)
	return nil
}
