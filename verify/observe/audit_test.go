package observe

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const kcmUA = "kube-controller-manager/v1.30.14 (linux/amd64) kubernetes/abc123/system:serviceaccount:kube-system:"
const ccmUA = "cloud-controller-manager/v0.31.4 (linux/amd64) kubernetes/abc123/"

func auditLine(ua, verb, resource, sub string) string {
	return `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","verb":"` + verb +
		`","user":{"username":"system:serviceaccount:kube-system:service-controller"},"sourceIPs":["172.18.0.3"],"userAgent":"` + ua +
		`","objectRef":{"resource":"` + resource + `","subresource":"` + sub + `","namespace":"default","name":"web"},` +
		`"responseStatus":{"code":200},"stageTimestamp":"2026-11-22T06:00:01.250000Z"}`
}

func TestAuditWriteAttribution(t *testing.T) {
	for _, tc := range []struct {
		name, line, manager, controller string
	}{
		{"service status by KCM", auditLine(kcmUA+"service-controller", "update", "services", "status"), "kube-controller-manager", "service-lb-controller"},
		{"event by CCM", auditLine(ccmUA+"service-controller", "create", "events", ""), "cloud-controller-manager", "service-lb-controller"},
		{"route condition", auditLine(kcmUA+"route-controller", "patch", "nodes", "status"), "kube-controller-manager", "node-route-controller"},
		{"node deleted by KCM", auditLine(kcmUA+"node-controller", "delete", "nodes", ""), "kube-controller-manager", "cloud-node-lifecycle-controller"},
		{"node initialised by CCM", auditLine(ccmUA+"node-controller", "patch", "nodes", ""), "cloud-controller-manager", "cloud-node-controller"},
		{"KCM node-controller patch is ambiguous", auditLine(kcmUA+"node-controller", "patch", "nodes", "status"), "", ""},
		{"another controller", auditLine(kcmUA+"deployment-controller", "update", "deployments", ""), "", ""},
		{"not a manager", auditLine("kubectl/v1.30.14 (linux/amd64) kubernetes/abc", "delete", "services", ""), "", ""},
		{"not complete", strings.Replace(auditLine(kcmUA+"service-controller", "update", "services", ""), "ResponseComplete", "ResponseStarted", 1), "", ""},
		{"not JSON", "{", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := auditWrite([]byte(tc.line), "cp1")
			if ok != (tc.manager != "") || e.Manager != tc.manager || e.Controller != tc.controller {
				t.Fatalf("got ok=%t %s/%s, want %s/%s", ok, e.Manager, e.Controller, tc.manager, tc.controller)
			}
			if ok && (e.Instance != "cp1" || e.Time.IsZero() || e.Attrs["code"] != "200" || e.Attrs["name"] != "default/web") {
				t.Fatalf("event %+v", e)
			}
		})
	}
}

func TestAuditTailFollowsGrowthRotationAndPartialLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	write := func(s string, flag int) {
		f, err := os.OpenFile(path, flag|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	log := AuditLog{Instance: "cp1", Open: func(context.Context) (*os.File, error) { return os.Open(path) }}
	now := time.Unix(1000, 0)
	lines := func(tl *auditTail, step time.Duration) string {
		now = now.Add(step)
		return string(bytes.Join(tl.poll(context.Background(), now), []byte{'|'}))
	}
	write("old\n", os.O_APPEND)
	tl := &auditTail{log: log, fromEnd: true}
	if got := lines(tl, 0); got != "" {
		t.Fatalf("read history %q from a log followed from its end", got)
	}
	write("a\nb", os.O_APPEND)
	if got := lines(tl, time.Second); got != "a" {
		t.Fatalf("growth: %q", got)
	}
	write("c\n", os.O_APPEND)
	if got := lines(tl, time.Second); got != "bc" {
		t.Fatalf("a partial line completed: %q", got)
	}
	write("x\n", os.O_TRUNC)
	if got := lines(tl, time.Second); got != "x" {
		t.Fatalf("after truncation: %q", got)
	}
	// Rotated: the held file's last lines, then the new file's once the
	// path is opened again.
	write("y\n", os.O_APPEND)
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	write("rotated\n", os.O_APPEND)
	if got := lines(tl, time.Second); got != "y" {
		t.Fatalf("before the path is opened again: %q", got)
	}
	if got := lines(tl, auditReopen); got != "rotated" {
		t.Fatalf("after rotation: %q", got)
	}
	fresh := &auditTail{log: log}
	if got := lines(fresh, 0); got != "rotated" {
		t.Fatalf("a log that appeared later is read from its start: %q", got)
	}
	// Closed (its node no longer listed), then listed again: it resumes
	// where it was, nothing read twice.
	write("more\n", os.O_APPEND)
	tl.close()
	if got := lines(tl, time.Second); got != "more" {
		t.Fatalf("resumed: %q", got)
	}
	// Closed, and the file replaced meanwhile (a restarted node): the new
	// one from its start, however long the old one was.
	tl.close()
	if err := os.Rename(path, path+".2"); err != nil {
		t.Fatal(err)
	}
	write("a-new-file-longer-than-the-old-offset\n", os.O_APPEND)
	if got := lines(tl, time.Second); got != "a-new-file-longer-than-the-old-offset" {
		t.Fatalf("a new file after closing: %q", got)
	}
	// The node went: what its API server wrote last is still read from
	// the file held open; a torn last line is not.
	write("last\npart", os.O_APPEND)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got := string(bytes.Join(tl.drain(), []byte{'|'})); got != "last" {
		t.Fatalf("drained %q", got)
	}
	tl.close()
	fresh.close()
}

func TestReadMetrics(t *testing.T) {
	ob := &Observer{o: Options{Controllers: []string{"service-lb-controller", "node-route-controller", "cloud-node-lifecycle-controller"}}}
	body := `# HELP running_managed_controllers [ALPHA] Indicates where instances of a controller are currently running
# TYPE running_managed_controllers gauge
running_managed_controllers{manager="kube-controller-manager",name="nodeipam"} 1
running_managed_controllers{manager="kube-controller-manager",name="route"} 1
running_managed_controllers{manager="kube-controller-manager",name="service"} 0
running_managed_controllers{manager="kube-controller-manager",name="cloud-node-lifecycle"} 1
leader_election_master_status{name="kube-controller-manager"} 1
leader_election_master_status{name="cloud-provider-extraction-migration"} 0
workqueue_depth{name="service"} 1
`
	c, l, err := ob.readMetrics(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c, ",") != "cloud-node-lifecycle-controller,node-route-controller" || strings.Join(l, ",") != "kube-controller-manager" {
		t.Fatalf("controllers %v leases %v", c, l)
	}
}

// The samples are read as Prometheus reads them, whatever the order of
// their labels, a label whose name ends in "name", an escaped quote or how
// the value is written; the families' lines are read without their TYPE.
// A page the format refuses is an error, not an empty answer.
func TestReadMetricsAsPrometheusDoes(t *testing.T) {
	ob := &Observer{o: Options{Controllers: []string{"service-lb-controller", "node-route-controller"}}}
	body := `running_managed_controllers{name="service",manager="cloud-controller-manager"} 1e+00
running_managed_controllers{manager="cloud-controller-manager",name="route"} 0.0
leader_election_master_status{controller_name="kcm",name="cloud-controller-manager"} 1
leader_election_master_status{name="quote\"d"} 1
running_managed_controllers_total{name="route"} 1
`
	c, l, err := ob.readMetrics(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c, ",") != "service-lb-controller" || strings.Join(l, ",") != `cloud-controller-manager,quote"d` {
		t.Fatalf("controllers %v leases %v", c, l)
	}
	if _, _, err := ob.readMetrics(strings.NewReader("leader_election_master_status{name=\"x\" 1\n")); err == nil {
		t.Fatal("a malformed sample was read")
	}
}
