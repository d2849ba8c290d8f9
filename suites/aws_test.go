package suites_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/verify/checks"
)

// AWS's own code on both sides (make aws; nightly: its node images take
// about 25 minutes to build cold): the in-tree aws provider of v1.26.13's
// managers and kubelets, cloud-provider-aws's manager after the hand-off,
// against the simulated EC2, ELB and instance metadata service.
var _ = Describe("AWS's own code", Label("aws"), func() {
	It("the task doc from v1.26.13 to v1.27.4 under moderate load", func(ctx context.Context) {
		rehearse(ctx, "aws-taskdoc", awsConfig("taskdoc", ""))
	}, NodeTimeout(30*time.Minute))

	It("Rancher's RKE2 runbook (the aws chart) under moderate load", func(ctx context.Context) {
		rehearse(ctx, "aws-rke2", awsConfig("rke2", "aws"))
	}, NodeTimeout(30*time.Minute))

	It("Rancher's RKE runbook (external-aws, useInstanceMetadataHostname) under moderate load", func(ctx context.Context) {
		rehearse(ctx, "aws-rke", awsConfig("rke", "external-aws"))
	}, NodeTimeout(30*time.Minute))

	// Negative case 15: the N+1 control planes join named by their
	// hostnames. No instance has that name: the version-N
	// kube-controller-manager's cloud-node-lifecycle controller takes each
	// for gone and deletes its Node, the cloud-controller-manager cannot
	// initialise it (rancher/rke2#7336, kubernetes/cloud-provider-gcp#758).
	It("15: N+1 control planes named by their hostnames", func(ctx context.Context) {
		c := awsConfig("taskdoc", "")
		c.Mistake, c.Force = migrate.MistakeN1Hostname, true
		res := negative(ctx, "aws-n1-hostname", c)
		// Which joins complete is a race between kubeadm's
		// mark-control-plane and the lifecycle controller's delete: a
		// Node that survives its join is left uninitialised, without a
		// ProviderID (provider-id, uninitialized-taint); the deletion
		// comes every time.
		Expect(failed(res, checks.NodeDeletion)).NotTo(BeEmpty(), "node-deletion did not fire; reports in %s", res.Dir)
	}, NodeTimeout(30*time.Minute))

	// Negative case 16: RKE's switch without useInstanceMetadataHostname.
	// Each kubelet comes back under its hostname: the machine registers a
	// second Node while its first, named by the private DNS name, is still
	// there (rancher/rke2#7336, kubernetes/cloud-provider-aws#285).
	It("16: kubelets switched to external-aws under their hostnames", func(ctx context.Context) {
		c := awsConfig("rke", "external-aws")
		c.Mistake = migrate.MistakeRKENoMetaHostname
		res := negative(ctx, "aws-rke-hostname", c)
		Expect(failed(res, checks.NodeIdentity)).NotTo(BeEmpty(), "node-identity did not fire; reports in %s", res.Dir)
	}, NodeTimeout(30*time.Minute))

	// Negative case 17: the cloud-controller-manager's cloud-config names
	// another cluster (KubernetesClusterID) than the one whose resources
	// the cloud tags: once it leads it finds none of the cluster's
	// instances, so its service controller leaves the load balancers
	// without backends and its node controllers cannot initialise the new
	// Nodes (zalando-incubator/kubernetes-on-aws#8487).
	It("17: the cloud-controller-manager's cloud-config names another cluster", func(ctx context.Context) {
		c, err := rehearsal.ReadFile("../examples/aws-cloud-configs/other-cluster.yaml")
		Expect(err).NotTo(HaveOccurred())
		res := negative(ctx, "aws-other-cluster", c)
		Expect(failed(res, checks.LBAvailability)).NotTo(BeEmpty(), "lb-availability did not fire; reports in %s", res.Dir)
		Expect(failed(res, checks.ProviderID)).NotTo(BeEmpty(), "provider-id did not fire; reports in %s", res.Dir)
	}, NodeTimeout(30*time.Minute))

	// Negative case 18: machines with a second interface (the VPC CNI's)
	// whose kubelets are not given --node-ip, as cluster-api's AWS
	// templates start them. The in-tree kubelets put the primary
	// interface's address first, cloud-provider-aws v1.27's node
	// controller the later interface's (EC2's order): the node IP flaps
	// with whichever wrote last (kubernetes/kubernetes#109793,
	// kubernetes/cloud-provider-aws#911).
	It("18: kubelets without --node-ip on machines with a second interface", func(ctx context.Context) {
		c, err := rehearsal.ReadFile("../examples/aws-second-interface/rehearsal.yaml")
		Expect(err).NotTo(HaveOccurred())
		res := negative(ctx, "aws-second-interface", c)
		red := failed(res, checks.NodeMetadata)
		Expect(red).NotTo(BeEmpty(), "node-metadata did not fire; reports in %s", res.Dir)
		// The value it changed to has the second interface's address first.
		Expect(red[0].Violations[0].Message).To(MatchRegexp(`to "[^"]*InternalDNS=[^,"]*,InternalIP=100\.64\.`), "the second interface's address never came first; reports in %s", res.Dir)
	}, NodeTimeout(30*time.Minute))

	// Negative case 19: the version-N+1 control planes' kubelets start
	// without ecr-credential-provider. A 1.27 kubelet has no in-tree ECR
	// provider: it asks the registry without credentials and is refused,
	// while the v1.26 kubelets keep pulling through theirs
	// (kubernetes/kubernetes#120411).
	It("19: version-N+1 kubelets without the image credential provider", func(ctx context.Context) {
		c := awsConfig("taskdoc", "")
		c.Mistake = migrate.MistakeN1NoCredentials
		res := negative(ctx, "aws-n1-no-credentials", c)
		expectPullsRefused(res)
	}, NodeTimeout(30*time.Minute))

	// Negative case 23: the cloud-controller-manager's cloud-config sets
	// DisableSecurityGroupIngress (kubernetes#21399), the in-tree side's
	// does not. Deleting a Service whose load balancer the in-tree side
	// made, the manager leaves that side's rule in the nodes' security
	// group, so EC2 refuses to delete the load balancer's group
	// (DependencyViolation) and the provider retries for ten minutes,
	// holding the service controller: new Services wait for an address.
	// Had it made a load balancer before that, the load balancer would
	// have no rule and take no traffic: either check fires.
	It("23: the cloud-controller-manager's cloud-config writes no ingress rule", func(ctx context.Context) {
		c, err := rehearsal.ReadFile("../examples/aws-cloud-configs/no-ingress.yaml")
		Expect(err).NotTo(HaveOccurred())
		res := negative(ctx, "aws-no-ingress", c)
		red := append(failed(res, checks.LBProvision), failed(res, checks.LBAvailability)...)
		Expect(red).NotTo(BeEmpty(), "neither lb-provision nor lb-availability fired; reports in %s", res.Dir)
	}, NodeTimeout(30*time.Minute))

	// Negative case 24: both managers' roles hold a policy written for the
	// in-tree provider, without ec2:DescribeAvailabilityZones, which
	// cloud-provider-aws v1.27 calls to choose a new load balancer's
	// subnets. Once it runs the service controller, new Services get no
	// load balancer, and the evidence names the action the policy refused.
	It("24: an IAM policy without an action the v1.27 manager calls", func(ctx context.Context) {
		c, err := rehearsal.ReadFile("../examples/aws-iam-policies/rehearsal.yaml")
		Expect(err).NotTo(HaveOccurred())
		res := negative(ctx, "aws-iam-before-127", c)
		red := failed(res, checks.LBProvision)
		Expect(red).NotTo(BeEmpty(), "lb-provision did not fire; reports in %s", res.Dir)
		Expect(red[0].Violations[0].Evidence).To(ContainElement(ContainSubstring("ec2:DescribeAvailabilityZones (403, knob iam)")),
			"the evidence does not name the refused action; reports in %s", res.Dir)
	}, NodeTimeout(30*time.Minute))

	// Negative case 25: two route tables are tagged for the cluster; the
	// in-tree side's cloud-config names the main one (RouteTableId), the
	// cloud-controller-manager's does not. Once the manager runs the route
	// controller it lists the tagged tables and refuses to pick one
	// (findRouteTable in aws_routes.go): the control planes that joined
	// since get no route and the removed ones keep theirs. The evidence
	// quotes the manager's own error.
	It("25: two tagged route tables and a cloud-config naming neither", func(ctx context.Context) {
		c, err := rehearsal.ReadFile("../examples/aws-route-tables/rehearsal.yaml")
		Expect(err).NotTo(HaveOccurred())
		res := negative(ctx, "aws-route-tables", c)
		red := failed(res, checks.RouteTable)
		Expect(red).NotTo(BeEmpty(), "route-table did not fire; reports in %s", res.Dir)
		Expect(red[0].Violations[0].Evidence).To(ContainElement(ContainSubstring("found multiple matching AWS route tables")),
			"the evidence does not quote the manager's error; reports in %s", res.Dir)
	}, NodeTimeout(30*time.Minute))

	// Negative case 26: RKE's runbook as written (external-aws with
	// useInstanceMetadataHostname) in a VPC whose DHCP options name a
	// domain of their own: the metadata's hostname is not the private DNS
	// name the in-tree kubelets registered under, so each switched kubelet
	// registers a second Node for its instance.
	It("26: useInstanceMetadataHostname in a VPC with a DHCP domain of its own", func(ctx context.Context) {
		c, err := rehearsal.ReadFile("../examples/aws-dhcp-domain/rehearsal.yaml")
		Expect(err).NotTo(HaveOccurred())
		res := negative(ctx, "aws-dhcp-domain", c)
		red := failed(res, checks.NodeIdentity)
		Expect(red).NotTo(BeEmpty(), "node-identity did not fire; reports in %s", res.Dir)
		Expect(red[0].Violations[0].Message+strings.Join(red[0].Violations[0].Evidence, " ")).To(ContainSubstring(".corp.example"),
			"the second Node is not the metadata's name; reports in %s", res.Dir)
	}, NodeTimeout(30*time.Minute))
})

// awsConfig is a rehearsal of a procedure with AWS's own code, v1.26.13 to
// v1.27.4, on the default shape and load.
func awsConfig(procedure, flavour string) rehearsal.Config {
	c := rehearsal.Default()
	c.Procedure, c.Flavour, c.Provider, c.From, c.To = procedure, flavour, "aws", "v1.26.13", "v1.27.4"
	return c
}

// expectPullsRefused: image-pulls went red, the registry refusing the
// kubelet that came without credentials.
func expectPullsRefused(res *rehearsal.Result) {
	GinkgoHelper()
	red := failed(res, checks.ImagePulls)
	Expect(red).NotTo(BeEmpty(), "image-pulls did not fire; reports in %s", res.Dir)
	Expect(red[0].Violations[0].Message).To(ContainSubstring("401 Unauthorized"), "the registry did not refuse the pull; reports in %s", res.Dir)
}
