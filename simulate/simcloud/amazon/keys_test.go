package amazon_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/simcloud/amazon"
	"github.com/handover-sh/handover/simulate/simcloud/awsapi"
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
