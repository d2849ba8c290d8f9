package suites_test

import (
	"context"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/reports"
	"github.com/handover-sh/handover/verify/checks"
)

// Azure's own code on both sides (make azure; nightly: its v1.29.15 node
// image and cloud-provider-azure's managers are built on demand): the
// in-tree azure provider of v1.29.15's managers and kubelets,
// cloud-provider-azure v1.30.4's chart (its manager and cloud-node-manager)
// after the switch, against the simulated Resource Manager and metadata
// service. Azure's manager has no leader migration: what keeps a runbook
// safe is its order, not the migration lock.
var _ = Describe("Azure's own code", Label("azure"), func() {
	It("Rancher's RKE2 runbook (Azure's chart) from v1.29.15 to v1.30.14 under moderate load", func(ctx context.Context) {
		rehearse(ctx, "azure-rke2", azureConfig("rke2", "azure"))
	}, NodeTimeout(40*time.Minute))

	// RKE's runbook as written starts the manager on the first switched
	// control plane while the others' kube-controller-managers still run
	// the in-tree provider: every migrated controller runs in both (the
	// lint predicts it; --force goes past it), which mutual-exclusion
	// shows from the managers' own leases and logs.
	It("Rancher's RKE runbook as written runs the cloud controllers in both managers", func(ctx context.Context) {
		c := azureConfig("rke", "external")
		c.Force = true
		res := negative(ctx, "azure-rke-as-written", c)
		Expect(failed(res, checks.MutualExclusion)).NotTo(BeEmpty(), "mutual-exclusion did not fire; reports in %s", res.Dir)
	}, NodeTimeout(40*time.Minute))

	// Negative case 20: the chart installed without its cloud-node-manager.
	// The chart's manager runs with --controllers=*,-cloud-node, so the
	// Nodes of the switched kubelets (and of the control planes that join
	// at v1.30.14) are never initialised.
	It("20: the chart without its cloud-node-manager", func(ctx context.Context) {
		c := azureConfig("rke2", "azure")
		c.Mistake = migrate.MistakeNoNodeManager
		res := negative(ctx, "azure-no-node-manager", c)
		Expect(failed(res, checks.ProviderID)).NotTo(BeEmpty(), "provider-id did not fire; reports in %s", res.Dir)
		Expect(failed(res, checks.Uninitialized)).NotTo(BeEmpty(), "uninitialized-taint did not fire; reports in %s", res.Dir)
	}, NodeTimeout(40*time.Minute))

	// Negative case 21: the version-1.30 control planes the switch brings
	// start without acr-credential-provider. A 1.30 kubelet has no in-tree
	// ACR provider (pkg/credentialprovider/azure is gone from v1.30.14),
	// so it asks the cluster's ACR without credentials and is refused,
	// while the v1.29.15 workers keep pulling through theirs (the KEP's
	// image-credentials risk).
	It("21: version-1.30 control planes without acr-credential-provider", func(ctx context.Context) {
		c := azureConfig("rke2", "azure")
		c.Mistake = migrate.MistakeN1NoCredentials
		res := negative(ctx, "azure-n1-no-credentials", c)
		expectPullsRefused(res)
	}, NodeTimeout(40*time.Minute))

	// Negative case 22: one azure.json for both sides without
	// loadBalancerSku, as cloud-provider-azure's own sample writes it. The
	// in-tree provider reads it as basic, and Azure creates no Basic SKU
	// public IP any more: the in-tree service controller's PUT of the first
	// Service's public IP is refused, the Service gets no address, and the
	// rehearsal stops at setup quoting the refusal (the lint warned first).
	It("22: azure.json without loadBalancerSku", func(ctx context.Context) {
		c, err := rehearsal.ReadFile("../examples/azure-cloud-configs/no-sku.yaml")
		Expect(err).NotTo(HaveOccurred())
		res, err := run(ctx, "neg-azure-no-sku", "negative/azure-no-sku", c)
		Expect(err).To(MatchError(ContainSubstring("IPv4BasicSkuPublicIpCountLimitReached")), "the refusal was not quoted; reports in %s", res.Dir)
		junit, err := os.ReadFile(filepath.Join(res.Dir, reports.JUnitFile))
		Expect(err).NotTo(HaveOccurred(), "a stopped rehearsal wrote no junit.xml")
		Expect(string(junit)).To(And(ContainSubstring(`type="`+reports.SetupCheck+`"`), ContainSubstring("IPv4BasicSkuPublicIpCountLimitReached")),
			"the gate's junit.xml does not carry the setup failure; reports in %s", res.Dir)
	}, NodeTimeout(40*time.Minute))
})

func azureConfig(procedure, flavour string) rehearsal.Config {
	c := rehearsal.Default()
	c.Procedure, c.Flavour, c.Provider, c.From, c.To = procedure, flavour, "azure", "v1.29.15", "v1.30.14"
	return c
}
