// Command drive runs an azure cloud provider, unchanged, through what a
// kubelet, a kube-controller-manager or cloud-controller-manager ask of
// it, against the ARM and metadata service its azure.json and the
// environment lead it to, and prints one JSON line per step. The azure
// package's tests run it against handover's simulated Azure. Each module
// beside this file (intree, ccm) pins one provider's release and builds
// its cloud (provider.go); this file is theirs alike (ccm/main.go links
// to it).
//
// Environment: HANDOVER_AZURE_CONFIG (azure.json's content),
// HANDOVER_AZURE_NODES (the cluster's Nodes as NAME=PROVIDERID,..., the
// worker's first, this VM's second: what the provider's node informer
// lists), and HTTP_PROXY, through which the metadata service's fixed
// address (169.254.169.254, hard-coded in both providers and in adal)
// reaches the simulated one, as a node's DNAT does.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	cloudprovider "k8s.io/cloud-provider"
)

// step is one call's outcome, and how long it took.
type step struct {
	Step   string `json:"step"`
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
	Took   string `json:"took"`
}

// last is when the previous step ended.
var last = time.Now()

func report(name string, result any, err error) bool {
	s := step{Step: name, Took: time.Since(last).Round(time.Millisecond).String()}
	last = time.Now()
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
	cloud, err := newCloud(ctx, strings.NewReader(os.Getenv("HANDOVER_AZURE_CONFIG")))
	if !report("start", "the provider started", err) {
		os.Exit(1)
	}
	nodes := clusterNodes(os.Getenv("HANDOVER_AZURE_NODES"))
	if users, ok := cloud.(cloudprovider.InformerUser); ok {
		factory := informers.NewSharedInformerFactory(fake.NewSimpleClientset(nodes...), 0)
		users.SetInformers(factory)
		stop := make(chan struct{})
		defer close(stop)
		factory.Start(stop)
		factory.WaitForCacheSync(stop)
	}
	worker, self := nodes[0].(*v1.Node), nodes[1].(*v1.Node)
	instances(ctx, cloud, types.NodeName(self.Name), types.NodeName(worker.Name), worker.Spec.ProviderID)
	routes(ctx, cloud, types.NodeName(worker.Name))
	loadBalancers(ctx, cloud, worker)
}

// clusterNodes are the Nodes NAME=PROVIDERID,... names.
func clusterNodes(spec string) []runtime.Object {
	var out []runtime.Object
	for _, n := range strings.Split(spec, ",") {
		name, id, _ := strings.Cut(n, "=")
		out = append(out, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeSpec{ProviderID: id},
			Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}}})
	}
	return out
}

// instances asks what a kubelet asks of its own VM (the metadata
// service) and what the node controllers ask of another (ARM).
func instances(ctx context.Context, cloud cloudprovider.Interface, self, worker types.NodeName, providerID string) {
	inst, _ := cloud.Instances()
	id, err := inst.InstanceID(ctx, self)
	report("kubelet: InstanceID of this VM", id, err)
	addrs, err := inst.NodeAddresses(ctx, self)
	report("kubelet: NodeAddresses", addrs, err)
	id, err = inst.InstanceID(ctx, worker)
	report("controller: InstanceID of the worker", id, err)
	exists, err := inst.InstanceExistsByProviderID(ctx, providerID)
	report("cloud-node-lifecycle: InstanceExistsByProviderID", exists, err)
	shutdown, err := inst.InstanceShutdownByProviderID(ctx, providerID)
	report("cloud-node-lifecycle: InstanceShutdownByProviderID", shutdown, err)
	gone, err := inst.InstanceExistsByProviderID(ctx, strings.TrimSuffix(providerID, string(worker))+"gone")
	report("cloud-node-lifecycle: InstanceExistsByProviderID of a deleted VM", gone, err)
	typ, err := inst.InstanceTypeByProviderID(ctx, providerID)
	report("cloud-node: InstanceTypeByProviderID", typ, err)
	if zones, ok := cloud.Zones(); ok {
		zone, err := zones.GetZoneByProviderID(ctx, providerID)
		report("cloud-node: GetZoneByProviderID", zone, err)
	}
}

func routes(ctx context.Context, cloud cloudprovider.Interface, worker types.NodeName) {
	routes, ok := cloud.Routes()
	if !ok {
		report("route: Routes", nil, fmt.Errorf("the provider has no routes"))
		return
	}
	route := &cloudprovider.Route{TargetNode: worker, DestinationCIDR: "10.244.1.0/24"}
	report("route: CreateRoute", route.DestinationCIDR, routes.CreateRoute(ctx, "c", "hint", route))
	listed, err := routes.ListRoutes(ctx, "c")
	report("route: ListRoutes", describeRoutes(listed), err)
	for _, r := range listed {
		if r.DestinationCIDR == route.DestinationCIDR {
			route.Name = r.Name
		}
	}
	report("route: DeleteRoute", route.DestinationCIDR, routes.DeleteRoute(ctx, "c", route))
}

func loadBalancers(ctx context.Context, cloud cloudprovider.Interface, worker *v1.Node) {
	lbs, ok := cloud.LoadBalancer()
	if !ok {
		report("service: LoadBalancer", nil, fmt.Errorf("the provider has no load balancers"))
		return
	}
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "load", Name: "web", UID: "0123abcd-4567-89ef-0123-456789abcdef"},
		Spec: v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, SessionAffinity: v1.ServiceAffinityNone, ExternalTrafficPolicy: v1.ServiceExternalTrafficPolicyTypeCluster,
			IPFamilies: []v1.IPFamily{v1.IPv4Protocol}, Ports: []v1.ServicePort{{Name: "http", Protocol: v1.ProtocolTCP, Port: 80, NodePort: 30080}}}}
	nodes := []*v1.Node{worker}
	status, err := lbs.EnsureLoadBalancer(ctx, "c", svc, nodes)
	report("service: EnsureLoadBalancer", describeStatus(status), err)
	if status != nil {
		svc.Status.LoadBalancer = *status
	}
	status, exists, err := lbs.GetLoadBalancer(ctx, "c", svc)
	report("service: GetLoadBalancer", fmt.Sprintf("exists=%v %s", exists, describeStatus(status)), err)
	report("service: UpdateLoadBalancer", "the same nodes", lbs.UpdateLoadBalancer(ctx, "c", svc, nodes))
	report("service: EnsureLoadBalancerDeleted", lbs.GetLoadBalancerName(ctx, "c", svc), lbs.EnsureLoadBalancerDeleted(ctx, "c", svc))
}

func describeRoutes(rs []*cloudprovider.Route) string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s %s->%s blackhole=%v", r.Name, r.DestinationCIDR, r.TargetNode, r.Blackhole))
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
