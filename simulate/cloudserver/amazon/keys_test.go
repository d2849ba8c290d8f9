package amazon_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

func TestKeysRoundTripAndAreRefusedWhenIncomplete(t *testing.T) {
	dir := t.TempDir()
	a, err := amazon.NewKey("kube-controller-manager")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^AKIA[A-Z2-7]{16}$`).MatchString(a.ID) || len(a.Secret) != 40 {
		t.Errorf("not an AWS-shaped key: %s / %d characters", a.ID, len(a.Secret))
	}
	path := filepath.Join(dir, "keys.json")
	if err := amazon.WriteKeys(path, []awsapi.Key{a}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("the keys are readable by others: %v", fi.Mode())
	}
	keys, err := amazon.ReadKeys(path)
	if err != nil || keys[a.ID] != a {
		t.Errorf("read back %v, %v", keys, err)
	}
	for name, body := range map[string]string{
		"no key":       `{"keys": []}`,
		"no principal": `{"keys": [{"id": "AKIA1", "secret": "s"}]}`,
		"a key twice":  `{"keys": [{"id": "AKIA1", "secret": "s", "principal": "a"}, {"id": "AKIA1", "secret": "t", "principal": "b"}]}`,
		"not JSON":     `keys: [`,
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := amazon.ReadKeys(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Unimplemented actions are answered as AWS answers them and counted.
func TestCallLogCountsUnimplementedActions(t *testing.T) {
	r := newRig(t, t.TempDir())
	path := filepath.Join(t.TempDir(), "aws-calls.jsonl")
	log, err := amazon.OpenCallLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	face, err := amazon.New(amazon.Options{Cloud: amazon.LocalCloud(r.cloud.Handler(), token), Keys: awsapi.Keys{kcm.ID: kcm},
		Network: amazon.Network{Cluster: cluster, Region: region, Zones: []string{region + "a"}, CIDR: "172.18.0.0/16"}, Record: log.Record})
	if err != nil {
		t.Fatal(err)
	}
	r.awsAt = serve(t, face)
	if _, err := r.ec2(kcm).DescribeVolumes(&ec2.DescribeVolumesInput{}); code(t, err) != "InvalidAction" {
		t.Errorf("an action not served: %v", err)
	}
	if _, err := r.ec2(kcm).DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{amazon.InstanceID(cluster, "c-worker")})}); err != nil {
		t.Fatal(err)
	}
	if got := log.Unimplemented(); len(got) != 1 || got["ec2:DescribeVolumes"] != 1 {
		t.Errorf("unimplemented: %v", got)
	}
	got, err := amazon.SummarizeCalls(path, time.Time{})
	want := []amazon.ActionCount{{Service: "ec2", Action: "DescribeInstances", Calls: 1},
		{Service: "ec2", Action: "DescribeVolumes", Calls: 1, Refused: 1, Unimplemented: true}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("summary: %+v, %v", got, err)
	}
	if later, err := amazon.SummarizeCalls(path, time.Now().Add(time.Minute)); err != nil || len(later) != 0 {
		t.Errorf("calls before since are counted: %+v, %v", later, err)
	}
}

// TestDocsListTheServedActions: docs/providers.md's table of served actions
// is the face's.
func TestDocsListTheServedActions(t *testing.T) {
	raw, err := os.ReadFile("../../../docs/providers.md")
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, t.TempDir())
	for service, actions := range r.face.Actions() {
		row := "| `" + service + "` | " + strings.Join(actions, ", ") + " |"
		if !strings.Contains(string(raw), row) {
			t.Errorf("docs/providers.md has no row\n%s", row)
		}
	}
}

// A node's kubelet key, issued after the cloud opened its keys' file, is
// served at once, and its calls are the node's: the AWS call record and
// the cloud's audit name the node whose key signed.
func TestANodesKeyIsServedAndNamesItsNode(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, dir)
	path := filepath.Join(dir, "keys.json")
	if err := amazon.WriteKeys(path, []awsapi.Key{kcm}); err != nil {
		t.Fatal(err)
	}
	keys, err := amazon.OpenKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var records []awsapi.Record
	face, err := amazon.New(amazon.Options{Cloud: amazon.LocalCloud(r.cloud.Handler(), token), Keys: keys,
		Network: amazon.Network{Cluster: cluster, Region: region, Zones: []string{region + "a"}, CIDR: "172.18.0.0/16"},
		Record:  func(rec awsapi.Record) { mu.Lock(); records = append(records, rec); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	r.awsAt = serve(t, face)
	node, err := amazon.NewKey("kubelet")
	if err != nil {
		t.Fatal(err)
	}
	node.Node = "c-worker"
	describe := &ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{amazon.InstanceID(cluster, "c-worker")})}
	if _, err := r.ec2(node).DescribeInstances(describe); code(t, err) != "InvalidClientTokenId" {
		t.Fatalf("a key not yet issued: %v", err)
	}
	if err := amazon.AddKey(path, node); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ec2(node).DescribeInstances(describe); err != nil {
		t.Fatalf("a key issued after the cloud started: %v", err)
	}
	mu.Lock()
	last := records[len(records)-1]
	mu.Unlock()
	if last.Principal != "kubelet" || last.Node != "c-worker" {
		t.Errorf("the AWS call record names %q on %q", last.Principal, last.Node)
	}
	audit, err := r.admin().Audit(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var named bool
	for _, e := range audit {
		named = named || e.Component == "kubelet" && e.Node == "c-worker"
	}
	if !named {
		t.Errorf("no audit entry names the node whose key signed: %+v", audit)
	}
	if _, err := r.ec2(kcm).DescribeInstances(describe); err != nil {
		t.Errorf("a key of the first reading: %v", err)
	}
}

// A file that stops reading keeps the keys last read; one changed is read
// again only when a call names a key not held.
func TestAKeyFileKeepsItsKeysWhenTheFileBreaks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	if err := amazon.WriteKeys(path, []awsapi.Key{kcm}); err != nil {
		t.Fatal(err)
	}
	keys, err := amazon.OpenKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("not JSON"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := keys.Key("AKIANOBODY"); ok {
		t.Error("an unknown key found")
	}
	if k, ok := keys.Key(kcm.ID); !ok || k != kcm {
		t.Errorf("the manager's key lost: %+v", k)
	}
	if err := amazon.AddKey(path, ccm); err == nil {
		t.Error("a key added to a broken file")
	}
}

// A node's key revoked (its node removed) is refused from the next call
// on, without the cloud restarting; a node's key whose instance was
// terminated is refused too, while the other keys still sign.
func TestARevokedOrTerminatedNodesKeyIsRefused(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, dir)
	worker, err := amazon.NewKey("kubelet")
	if err != nil {
		t.Fatal(err)
	}
	worker.Node = "c-worker"
	local, err := amazon.NewKey("kubelet")
	if err != nil {
		t.Fatal(err)
	}
	local.Node = "c-local"
	path := filepath.Join(dir, "keys.json")
	if err := amazon.WriteKeys(path, []awsapi.Key{kcm, worker, local}); err != nil {
		t.Fatal(err)
	}
	keys, err := amazon.OpenKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	face, err := amazon.New(amazon.Options{Cloud: amazon.LocalCloud(r.cloud.Handler(), token), Keys: keys, Terminated: r.cloud.Terminated,
		Network: amazon.Network{Cluster: cluster, Region: region, Zones: []string{region + "a"}, CIDR: "172.18.0.0/16"}})
	if err != nil {
		t.Fatal(err)
	}
	r.awsAt = serve(t, face)
	describe := &ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{amazon.InstanceID(cluster, "c-control-plane")})}
	for _, k := range []awsapi.Key{worker, local} {
		if _, err := r.ec2(k).DescribeInstances(describe); err != nil {
			t.Fatalf("%s's key before it left: %v", k.Node, err)
		}
	}
	if n, err := amazon.RevokeNodeKeys(path, "c-worker"); err != nil || n != 1 {
		t.Fatalf("revoked %d keys: %v", n, err)
	}
	if _, err := r.ec2(worker).DescribeInstances(describe); code(t, err) != "InvalidClientTokenId" {
		t.Errorf("a revoked key: %v", err)
	}
	if err := r.admin().TerminateInstance(context.Background(), "c-local"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ec2(local).DescribeInstances(describe); code(t, err) != "InvalidClientTokenId" {
		t.Errorf("a terminated instance's key: %v", err)
	}
	if _, err := r.ec2(kcm).DescribeInstances(describe); err != nil {
		t.Errorf("the manager's key after a node left: %v", err)
	}
}

// Edits of the keys' file from many goroutines (each its own lock's open
// file, as two processes have) lose none of them.
func TestKeyEditsLoseNoKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	if err := amazon.WriteKeys(path, []awsapi.Key{kcm}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := amazon.NewKey("kubelet")
			if err == nil {
				err = amazon.AddKey(path, k)
			}
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if keys, err := amazon.ReadKeys(path); err != nil || len(keys) != 17 {
		t.Errorf("%d keys after 16 adds to one: %v", len(keys), err)
	}
}
