package cloudcluster

import (
	"context"
	"fmt"
	"strings"

	kexec "sigs.k8s.io/kind/pkg/exec"
)

// EC2 answers every instance's metadata requests at one link-local
// address, the one the AWS SDKs and cloud-init ask by default. Nodes of a
// cluster whose cloud serves a metadata service (Served.Metadata) reach
// the simulated one there: traffic the kind bridge carries to it is
// redirected (DNAT, source kept, so the service knows the caller) to the
// port the cloud serves it on at the network's gateway. Only the bridge's
// traffic is redirected: the host's own requests still reach its own
// cloud's metadata service, which a CI runner's agents need. One
// cluster's rule at a time: the address is one.

// MetadataAddress is EC2's instance metadata service address.
const MetadataAddress = "169.254.169.254"

// metadataRule is the nat PREROUTING rule of cluster's service at to.
func metadataRule(bridge, cluster, to string) []string {
	return []string{"-i", bridge, "-d", MetadataAddress + "/32", "-p", "tcp", "--dport", "80",
		"-m", "comment", "--comment", metadataComment + cluster, "-j", "DNAT", "--to-destination", to}
}

const metadataComment = "handover-instance-metadata:"

// kindBridge is the host's interface of the kind network.
func kindBridge(ctx context.Context) (string, error) {
	out, err := kexec.Output(kexec.CommandContext(ctx, "docker", "network", "inspect", "kind", "--format",
		`{{.Id}} {{index .Options "com.docker.network.bridge.name"}}`))
	if err != nil {
		return "", fmt.Errorf("inspecting the kind network: %w", err)
	}
	// Docker names a bridge br-<id> unless the network's options name it.
	f := strings.Fields(string(out))
	switch {
	case len(f) == 2 && f[1] != "<no value>":
		return f[1], nil
	case len(f) >= 1 && len(f[0]) >= 12:
		return "br-" + f[0][:12], nil
	}
	return "", fmt.Errorf("the kind network's bridge: unexpected %q", out)
}

// metadataRules lists the redirects handover has in place, by cluster.
func metadataRules(ctx context.Context) (map[string][]string, error) {
	lines, err := kexec.OutputLines(kexec.CommandContext(ctx, "iptables", "-w", "-t", "nat", "-S", "PREROUTING"))
	if err != nil {
		return nil, fmt.Errorf("listing nat PREROUTING: %w (iptables is needed for aws clusters: run `handover host prepare`)", err)
	}
	return parseMetadataRules(lines), nil
}

// parseMetadataRules picks handover's redirects out of `iptables -S`
// lines: each as the arguments that delete it, by cluster.
func parseMetadataRules(lines []string) map[string][]string {
	out := map[string][]string{}
	for _, l := range lines {
		i := strings.Index(l, metadataComment)
		if !strings.HasPrefix(l, "-A PREROUTING ") || i < 0 {
			continue
		}
		cluster := strings.Trim(strings.Fields(l[i+len(metadataComment):])[0], `"`)
		var rule []string
		for _, f := range strings.Fields(strings.TrimPrefix(l, "-A PREROUTING ")) {
			rule = append(rule, strings.Trim(f, `"`))
		}
		out[cluster] = rule
	}
	return out
}

// redirectMetadata points the kind bridge's metadata requests at to
// (host:port) for cluster. It refuses while another cluster's cloud, still
// running, has the address.
func redirectMetadata(ctx context.Context, cluster, to string) error {
	bridge, err := kindBridge(ctx)
	if err != nil {
		return err
	}
	rules, err := metadataRules(ctx)
	if err != nil {
		return err
	}
	for other, rule := range rules {
		if other != cluster {
			if _, runs := ServerPID(other); runs {
				return fmt.Errorf("cluster %q serves the instance metadata address %s on this host: one aws cluster at a time (delete it with `handover cluster delete --name %s`)", other, MetadataAddress, other)
			}
		}
		if err := deleteRule(ctx, rule); err != nil {
			return err
		}
	}
	args := append([]string{"-w", "-t", "nat", "-I", "PREROUTING"}, metadataRule(bridge, cluster, to)...)
	if out, err := kexec.CombinedOutputLines(kexec.CommandContext(ctx, "iptables", args...)); err != nil {
		return fmt.Errorf("redirecting %s to the simulated metadata service: %w: %s", MetadataAddress, err, strings.Join(out, "; "))
	}
	return nil
}

// UnredirectMetadata removes cluster's redirect, if it has one (a cloud
// whose Served.Metadata was set made it).
func UnredirectMetadata(ctx context.Context, cluster string) error {
	rules, err := metadataRules(ctx)
	if err != nil {
		return err
	}
	if rule, ok := rules[cluster]; ok {
		return deleteRule(ctx, rule)
	}
	return nil
}

func deleteRule(ctx context.Context, rule []string) error {
	args := append([]string{"-w", "-t", "nat", "-D", "PREROUTING"}, rule...)
	if out, err := kexec.CombinedOutputLines(kexec.CommandContext(ctx, "iptables", args...)); err != nil {
		return fmt.Errorf("removing a metadata redirect: %w: %s", err, strings.Join(out, "; "))
	}
	return nil
}
