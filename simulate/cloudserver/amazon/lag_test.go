package amazon_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
)

// clock is the cloud's, moved by the test (the face keeps the real one:
// the SDK's signatures are dated by it).
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// states are the instances DescribeInstances answers, by name tag, with
// their state.
func states(t *testing.T, c *ec2.EC2) map[string]string {
	t.Helper()
	out, err := c.DescribeInstances(&ec2.DescribeInstancesInput{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, res := range out.Reservations {
		for _, in := range res.Instances {
			for _, tag := range in.Tags {
				if aws.StringValue(tag.Key) == "Name" {
					got[aws.StringValue(tag.Value)] = aws.StringValue(in.State.Name)
				}
			}
		}
	}
	return got
}

// Under the lag knob DescribeInstances answers as an eventually
// consistent EC2 does: an instance just launched is not described (by ID:
// InvalidInstanceID.NotFound) and one just terminated is still running,
// until the lag has passed; without the knob both show at once.
func TestLagDelaysWhatDescribeInstancesSees(t *testing.T) {
	clk := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := newRigWith(t, t.TempDir(), func(o *cloudserver.Options) { o.Now = clk.Now })
	ctx := context.Background()
	c := r.ec2(kcm)
	if got := states(t, c); len(got) != 3 {
		t.Fatalf("described %v, want the rig's 3 instances", got)
	}
	clk.add(time.Minute)
	if err := r.admin().SetFaults(ctx, api.Faults{Lag: api.Duration{Duration: 30 * time.Second}}); err != nil {
		t.Fatal(err)
	}
	r.back.mu.Lock()
	r.back.instances = append(r.back.instances, instance("c-worker2", region+"a", "172.18.0.4"))
	r.back.mu.Unlock()
	if err := r.admin().TerminateInstance(ctx, "c-worker"); err != nil {
		t.Fatal(err)
	}
	if got := states(t, c); got["c-worker2"] != "" || got["c-worker"] != "running" {
		t.Fatalf("within the lag: %v, want no c-worker2 and c-worker running", got)
	}
	fresh := amazon.InstanceID(cluster, "c-worker2")
	if _, err := c.DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{fresh})}); code(t, err) != "InvalidInstanceID.NotFound" {
		t.Errorf("the new instance by ID within the lag: %v", err)
	}
	clk.add(31 * time.Second)
	if got := states(t, c); got["c-worker2"] != "running" || got["c-worker"] != "terminated" {
		t.Fatalf("after the lag: %v, want c-worker2 running and c-worker terminated", got)
	}

	if err := r.admin().SetFaults(ctx, api.Faults{}); err != nil {
		t.Fatal(err)
	}
	r.back.mu.Lock()
	r.back.instances = append(r.back.instances, instance("c-worker3", region+"b", "172.18.0.5"))
	r.back.mu.Unlock()
	if err := r.admin().TerminateInstance(ctx, "c-worker2"); err != nil {
		t.Fatal(err)
	}
	if got := states(t, c); got["c-worker3"] != "running" || got["c-worker2"] != "terminated" {
		t.Fatalf("without the lag: %v, want c-worker3 running and c-worker2 terminated at once", got)
	}
}
