// Command drive runs an aws cloud provider, unchanged, through what a
// kube-controller-manager, a cloud-controller-manager and a kubelet ask of
// it, against the AWS APIs named by its cloud-config, and prints one JSON
// line per step. The amazon package's tests run it against handover's
// simulated AWS. Each module beside this file (intree, ccm) pins one
// provider's release and registers it (provider.go); this file is theirs
// alike (ccm/main.go links to it).
//
// Environment: HANDOVER_AWS_CONFIG (the cloud-config, with its
// [ServiceOverride] sections), HANDOVER_AWS_NODES (the cluster's Nodes as
// NAME=PROVIDERID,..., the worker's first: what the provider's node
// informer lists, as a manager hands it one), and the SDK's own
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	cloudprovider "k8s.io/cloud-provider"
)

// step is one call's outcome.
type step struct {
	Step   string `json:"step"`
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

func report(name string, result any, err error) bool {
	s := step{Step: name}
	if err != nil {
		s.Error = err.Error()
	} else {
		s.Result = fmt.Sprint(result)
	}
	out, _ := json.Marshal(s)
	fmt.Println(string(out))
	return err == nil
}

func main() {
	ctx := context.Background()
	cloud, err := cloudprovider.GetCloudProvider("aws", strings.NewReader(os.Getenv("HANDOVER_AWS_CONFIG")))
	if !report("start", "the provider started", err) {
		os.Exit(1)
	}
	nodes := clusterNodes(os.Getenv("HANDOVER_AWS_NODES"))
	if users, ok := cloud.(cloudprovider.InformerUser); ok {
		factory := informers.NewSharedInformerFactory(fake.NewSimpleClientset(nodes...), 0)
		users.SetInformers(factory)
		stop := make(chan struct{})
		defer close(stop)
		factory.Start(stop)
		factory.WaitForCacheSync(stop)
	}
	worker := types.NodeName(nodes[0].(*v1.Node).Name)
	inst, _ := cloud.Instances()
	self, err := inst.CurrentNodeName(ctx, "a-hostname")
	report("kubelet: CurrentNodeName", self, err)
	addrs, err := inst.NodeAddresses(ctx, self)
	report("kubelet: NodeAddresses", addrs, err)
	if selfID, err := inst.InstanceID(ctx, self); err == nil {
		addrs, err = inst.NodeAddressesByProviderID(ctx, "aws://"+selfID)
		report("cloud-node: NodeAddressesByProviderID of this instance", addrs, err)
	}
	id, err := inst.InstanceID(ctx, worker)
	report("kube-controller-manager: InstanceID of the worker", id, err)
	providerID := "aws://" + id
	exists, err := inst.InstanceExistsByProviderID(ctx, providerID)
	report("cloud-node-lifecycle: InstanceExistsByProviderID", exists, err)
	shutdown, err := inst.InstanceShutdownByProviderID(ctx, providerID)
	report("cloud-node-lifecycle: InstanceShutdownByProviderID", shutdown, err)
	zones, _ := cloud.Zones()
	zone, err := zones.GetZoneByProviderID(ctx, providerID)
	report("node: GetZoneByProviderID", zone, err)
	routesAndLBs(ctx, cloud, worker, providerID)
}

// clusterNodes are the Nodes NAME=PROVIDERID,... names.
func clusterNodes(spec string) []runtime.Object {
	var out []runtime.Object
	for _, n := range strings.Split(spec, ",") {
		name, id, _ := strings.Cut(n, "=")
		out = append(out, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeSpec{ProviderID: id}})
	}
	return out
}

func routesAndLBs(ctx context.Context, cloud cloudprovider.Interface, worker types.NodeName, providerID string) {
	routes, _ := cloud.Routes()
	route := &cloudprovider.Route{TargetNode: worker, DestinationCIDR: "10.244.1.0/24"}
	report("route: CreateRoute", route.DestinationCIDR, routes.CreateRoute(ctx, "c", "hint", route))
	listed, err := routes.ListRoutes(ctx, "c")
	report("route: ListRoutes", describeRoutes(listed), err)
	report("route: DeleteRoute", route.DestinationCIDR, routes.DeleteRoute(ctx, "c", route))

	lbs, _ := cloud.LoadBalancer()
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "load", Name: "web", UID: "0123abcd-4567-89ef-0123-456789abcdef"},
		Spec: v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, SessionAffinity: v1.ServiceAffinityNone, ExternalTrafficPolicy: v1.ServiceExternalTrafficPolicyTypeCluster, Ports: []v1.ServicePort{{Name: "http", Protocol: v1.ProtocolTCP, Port: 80, NodePort: 30080}}}}
	nodes := []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: string(worker)}, Spec: v1.NodeSpec{ProviderID: providerID}}}
	status, err := lbs.EnsureLoadBalancer(ctx, "c", svc, nodes)
	report("service: EnsureLoadBalancer", describeStatus(status), err)
	status, exists, err := lbs.GetLoadBalancer(ctx, "c", svc)
	report("service: GetLoadBalancer", fmt.Sprintf("exists=%v %s", exists, describeStatus(status)), err)
	report("service: UpdateLoadBalancer", "the same nodes", lbs.UpdateLoadBalancer(ctx, "c", svc, nodes))
	report("service: EnsureLoadBalancerDeleted", lbs.GetLoadBalancerName(ctx, "c", svc), lbs.EnsureLoadBalancerDeleted(ctx, "c", svc))
}

func describeRoutes(rs []*cloudprovider.Route) string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s->%s blackhole=%v", r.DestinationCIDR, r.TargetNode, r.Blackhole))
	}
	return strings.Join(out, ", ")
}

func describeStatus(s *v1.LoadBalancerStatus) string {
	if s == nil {
		return "none"
	}
	var out []string
	for _, in := range s.Ingress {
		out = append(out, in.Hostname+in.IP)
	}
	return strings.Join(out, ",")
}
