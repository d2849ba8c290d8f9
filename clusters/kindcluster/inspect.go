package kindcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"sigs.k8s.io/kind/pkg/cluster/nodes"
	kerrors "sigs.k8s.io/kind/pkg/errors"
	kexec "sigs.k8s.io/kind/pkg/exec"

	"github.com/handover-sh/handover/internal/privatefs"
)

// EtcdMembers lists the etcd member names as etcd itself reports them,
// asked through a control plane's local etcd.
func (c *Cluster) EtcdMembers(ctx context.Context) ([]string, error) {
	cps, err := c.ControlPlanes()
	if err != nil || len(cps) == 0 {
		return nil, fmt.Errorf("no control plane to ask: %v", err)
	}
	members, err := etcdMemberList(ctx, cps[0])
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range members {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return names, nil
}

type etcdMember struct {
	ID   string `json:"ID"`
	Name string `json:"name"`
}

// etcdAPI posts to the JSON gateway of a node's local etcd member.
func etcdAPI(ctx context.Context, n nodes.Node, path, body string, into any) error {
	out, err := run(ctx, n, "curl", "-sS", "--fail-with-body", "--max-time", "10", "-X", "POST", "-d", body,
		"--cacert", "/etc/kubernetes/pki/etcd/ca.crt",
		"--cert", "/etc/kubernetes/pki/etcd/healthcheck-client.crt",
		"--key", "/etc/kubernetes/pki/etcd/healthcheck-client.key",
		"https://127.0.0.1:2379"+path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(out), into); err != nil {
		return fmt.Errorf("decoding etcd %s answer %q: %w", path, out, err)
	}
	return nil
}

func etcdMemberList(ctx context.Context, n nodes.Node) ([]etcdMember, error) {
	var resp struct {
		Members []etcdMember `json:"members"`
	}
	err := etcdAPI(ctx, n, "/v3/cluster/member/list", "{}", &resp)
	return resp.Members, err
}

// handOffEtcdLeadership moves etcd leadership away from n's member if it
// leads, so removing that member needs no election: removing a leader makes
// the rest wait an election timeout, and requests in flight fail with
// "leader changed".
func handOffEtcdLeadership(ctx context.Context, n nodes.Node) error {
	var status struct {
		Header struct {
			MemberID string `json:"member_id"`
		} `json:"header"`
		Leader string `json:"leader"`
	}
	if err := etcdAPI(ctx, n, "/v3/maintenance/status", "{}", &status); err != nil {
		return err
	}
	if status.Leader != status.Header.MemberID {
		return nil
	}
	members, err := etcdMemberList(ctx, n)
	if err != nil {
		return err
	}
	for _, m := range members {
		if m.ID != status.Header.MemberID && m.Name != "" {
			var ignored map[string]any
			return etcdAPI(ctx, n, "/v3/maintenance/transfer-leadership", fmt.Sprintf(`{"targetID":%q}`, m.ID), &ignored)
		}
	}
	return fmt.Errorf("no other started etcd member to hand leadership to")
}

// CollectLogs exports node logs (journal, containers, kubelet) into dir,
// with those of nodes whose add failed (and which are gone) under
// dir/failed-nodes.
func (c *Cluster) CollectLogs(dir string) error {
	if err := privatefs.MkdirAllMode(dir, 0o755); err != nil {
		return err
	}
	ferr := exportFailedNodes(c.Name, dir)
	if err := c.exportKindLogs(dir); err != nil {
		return err
	}
	return ferr
}

// exportKindLogs has kind export into a new 0700 directory inside dir and
// moves what it wrote up by renames: kind's export creates and writes its
// files by path, following any link planted where it writes.
func (c *Cluster) exportKindLogs(dir string) error {
	tmp, err := os.MkdirTemp(dir, ".kind-logs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	kerr := withoutNoCrictl(c.provider.CollectLogs(c.Name, tmp))
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return errors.Join(kerr, err)
	}
	for _, e := range entries {
		if err := os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			kerr = errors.Join(kerr, fmt.Errorf("keeping kind's %s: %w", e.Name(), err))
		}
	}
	return kerr
}

// withoutNoCrictl drops kind's `crictl images` failures from its log
// export: node images carry no crictl (it is neither on the module proxy
// nor in Debian), so it fails on every node of every export, and said so
// as an error each time. What else failed is kept.
func withoutNoCrictl(err error) error {
	if err == nil {
		return nil
	}
	all := kerrors.Errors(err)
	if all == nil {
		all = []error{err}
	}
	var keep []error
	for _, e := range all {
		var run *kexec.RunError
		if !errors.As(e, &run) || !slices.Contains(run.Command, "crictl") {
			keep = append(keep, e)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	return kerrors.NewAggregate(keep)
}
