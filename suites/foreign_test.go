package suites_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/clusters/nodeaccess"
	"github.com/handover-sh/handover/internal/testenv"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/checks"
)

// A handover cluster observed as a stranger's: `handover observe` gets a
// kubeconfig of a read-only service account (through a proxy that records
// every request it sends) and the managers' URLs (tunnels this test holds
// open, as an operator's SSH tunnels would), and no kind or Docker access,
// while `handover migrate` runs the task doc from another process.
var _ = Describe("observing a cluster from its kubeconfig alone", Label("observe", "foreign"), Ordered, func() {
	const name = "stranger"
	var (
		kc       *kindcluster.Cluster
		kubecfg  string
		api      *recordingProxy
		tunnels  []string // --manager values
		tunnelsM *tunnelSet
	)
	BeforeAll(func(ctx context.Context) {
		inTreeCluster(ctx, name)
		var err error
		kc, err = kindcluster.Open(name, ginkgoLogger{})
		Expect(err).NotTo(HaveOccurred())
		admin, err := kc.Client()
		Expect(err).NotTo(HaveOccurred())
		rc, err := kc.RESTConfig()
		Expect(err).NotTo(HaveOccurred())
		token := readOnlyToken(ctx, admin)
		api = newRecordingProxy(rc.Host)
		DeferCleanup(api.Close)
		kubecfg = writeKubeconfig(api.URL(), token)
		// Every control plane the task doc may ever have, by the names
		// kind gives them: a tunnel to one not there (yet) closes at once,
		// as an SSH tunnel to a port nothing listens on does, and the
		// observer reads the manager as down.
		tunnelsM = &tunnelSet{kc: kc}
		DeferCleanup(tunnelsM.Close)
		for i := 1; i <= 8; i++ {
			node := name + "-control-plane"
			if i > 1 {
				node += fmt.Sprint(i)
			}
			for _, comp := range managers.Names() {
				tunnels = append(tunnels, fmt.Sprintf("%s@%s=https://%s", comp, node, tunnelsM.Open(node, managers.Ports[comp])))
			}
		}
	}, NodeTimeout(15*time.Minute))

	It("refuses, at once and naming them, to observe without the permissions it needs", func(ctx context.Context) {
		admin, err := kc.Client()
		Expect(err).NotTo(HaveOccurred())
		noRole := writeKubeconfig(api.URL(), serviceAccountToken(ctx, admin, "handover-no-role"))
		start := time.Now()
		out, err := exec.CommandContext(ctx, self, "observe", "--kubeconfig", noRole, "--out", reportsDir("foreign/no-role"), "--for", "1m").CombinedOutput()
		Expect(err).To(HaveOccurred(), "observe ran without permissions:\n%s", out)
		Expect(string(out)).To(ContainSubstring("the cluster refused this identity: list events"), "%s", out)
		Expect(string(out)).To(ContainSubstring("--print-rbac"))
		Expect(time.Since(start)).To(BeNumerically("<", 15*time.Second))
	}, NodeTimeout(5*time.Minute))

	// Without --manager it finds the managers itself, and before the window
	// starts names each one it cannot reach (kubeadm binds them to the
	// loopback) with the commands that would.
	It("finds the managers without --manager and says how to reach each", func(ctx context.Context) {
		dir := reportsDir("foreign/discovery")
		Expect(os.RemoveAll(dir)).To(Succeed())
		out, err := exec.CommandContext(ctx, self, "observe", "--kubeconfig", kubecfg, "--out", dir, "--for", "5s").CombinedOutput()
		AddReportEntry("observe without --manager", string(out))
		Expect(err).To(HaveOccurred(), "a window without the managers' health cannot pass:\n%s", out)
		nodes, err := kc.Nodes()
		Expect(err).NotTo(HaveOccurred())
		for _, n := range nodes {
			if role, err := n.Role(); err != nil || role != "control-plane" {
				continue
			}
			for _, m := range []string{"kcm", "ccm"} {
				if m == "ccm" && !strings.Contains(string(out), "cloud-controller-manager on "+n.String()) {
					continue // the in-tree cluster has no CCM yet
				}
				Expect(string(out)).To(MatchRegexp(`ssh -N -L \d+:127\.0\.0\.1:\d+ %s, and add --manager %s@%s=https://127\.0\.0\.1:\d+`, n.String(), m, n.String()), "%s", out)
			}
		}
	}, NodeTimeout(5*time.Minute))

	// A quiet in-tree cluster, its kube-controller-managers given: no
	// cloud-controller-manager pod exists, so the other manager cannot
	// have run a controller, and mutual exclusion is proven from the pods
	// and the managers' health.
	It("passes a quiet in-tree cluster observed for 90 s, exclusion proven from pods and health", func(ctx context.Context) {
		var kcms []string
		for _, t := range tunnels {
			if strings.HasPrefix(t, "kube-controller-manager@") {
				kcms = append(kcms, t)
			}
		}
		o := startForeignObserver(ctx, kubecfg, kcms, "foreign/quiet")
		select {
		case <-time.After(90 * time.Second):
		case <-ctx.Done():
		}
		code, dir := o.stop()
		Expect(failedIn(dir)).To(BeEmpty(), "reports in %s", dir)
		Expect(code).To(Equal(0), "observe exited %d; reports in %s", code, dir)
		for _, r := range resultsIn(dir) {
			if r.Check == checks.MutualExclusion {
				Expect(r.Summary).To(ContainSubstring("proven from the API that cloud-controller-manager never ran"), "reports in %s", dir)
			}
		}
	}, NodeTimeout(5*time.Minute))

	It("passes the task doc done right, having only read", func(ctx context.Context) {
		code, dir, runErr := observeForeignWhile(ctx, kubecfg, tunnels, "foreign/taskdoc", "migrate", "--name", name, "--observe=false",
			"--out", reportsDir("foreign/taskdoc-runner"))
		Expect(runErr).NotTo(HaveOccurred(), "the observed migration failed")
		Expect(failedIn(dir)).To(BeEmpty(), "reports in %s", dir)
		Expect(code).To(Equal(0), "observe exited %d; reports in %s", code, dir)
		// The managers are reached without --manager-ca: asked only their
		// anonymous /healthz, their /metrics are not judged, and say why.
		Expect(skippedIn(dir)).To(HaveKeyWithValue(checks.Evidence+"/metrics", HavePrefix("not available without --manager-ca")), "reports in %s", dir)
		Expect(api.Writes()).To(BeEmpty(), "the observer sent writes")
		Expect(api.Reads()).To(BeNumerically(">", 0))
		AddReportEntry("requests the observer sent", api.Summary())
	}, NodeTimeout(30*time.Minute))

	It("fails the CCM started without leader migration, from the managers and from the API alone", func(ctx context.Context) {
		handover(ctx, "migrate", "--name", name, "--rollback", "--observe=false", "--out", reportsDir("foreign/rollback-runner"))
		apiOnly := startForeignObserver(ctx, kubecfg, nil, "foreign/ccm-without-lm-api-only")
		code, dir, runErr := observeForeignWhile(ctx, kubecfg, tunnels, "foreign/ccm-without-lm", "migrate", "--name", name, "--observe=false", "--force",
			"--mistake", migrate.MistakeCCMWithoutLM, "--out", reportsDir("foreign/ccm-without-lm-runner"))
		if runErr != nil {
			AddReportEntry("the observed run", runErr.Error())
		}
		apiCode, apiDir := apiOnly.stop()
		Expect(code).NotTo(Equal(0), "observe passed a double run; reports in %s", dir)
		Expect(provenOverlaps(dir)).NotTo(BeEmpty(), "no overlap proven from the managers' endpoints; reports in %s", dir)
		Expect(apiCode).NotTo(Equal(0), "API-only observation passed a double run; reports in %s", apiDir)
		Expect(failedIn(apiDir)).To(ContainElement(checks.MutualExclusion), "reports in %s", apiDir)
		AddReportEntry("API-only mutual exclusion", fmt.Sprintf("proven overlaps: %v", provenOverlaps(apiDir)))
		Expect(api.Writes()).To(BeEmpty(), "the observer sent writes")
	}, NodeTimeout(40*time.Minute))
})

// readOnlyToken makes a service account, creates every object `handover
// observe --print-rbac --rbac-subject` prints for it (the roles and their
// bindings to it), and returns a token for it.
func readOnlyToken(ctx context.Context, c kubernetes.Interface) string {
	const ns, sa = "kube-system", "handover-observer"
	out, err := exec.CommandContext(ctx, self, "observe", "--print-rbac", "--rbac-subject", "serviceaccount:"+ns+":"+sa).Output()
	Expect(err).NotTo(HaveOccurred())
	token := serviceAccountToken(ctx, c, sa)
	Expect(createRBAC(ctx, c, out)).To(ConsistOf("ClusterRole", "ClusterRoleBinding", "Role kube-system", "RoleBinding kube-system"),
		"--print-rbac printed:\n%s", out)
	return token
}

// createRBAC creates every document of a multi-document YAML of RBAC
// objects, each decoded strictly, and names what it created: the kind, and
// the namespace where there is one.
func createRBAC(ctx context.Context, c kubernetes.Interface, docs []byte) []string {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(docs)))
	var created []string
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return created
		}
		Expect(err).NotTo(HaveOccurred())
		var head struct {
			metav1.TypeMeta `json:",inline"`
			Metadata        metav1.ObjectMeta `json:"metadata"`
		}
		Expect(yaml.Unmarshal(doc, &head)).To(Succeed(), "%s", doc)
		ns, rbac := head.Metadata.Namespace, c.RbacV1()
		switch head.Kind {
		case "": // comments alone
			continue
		case "ClusterRole":
			decodeAndCreate(ctx, doc, rbac.ClusterRoles().Create)
		case "ClusterRoleBinding":
			decodeAndCreate(ctx, doc, rbac.ClusterRoleBindings().Create)
		case "Role":
			decodeAndCreate(ctx, doc, rbac.Roles(ns).Create)
		case "RoleBinding":
			decodeAndCreate(ctx, doc, rbac.RoleBindings(ns).Create)
		default:
			Fail(fmt.Sprintf("--print-rbac printed a %s, which this test does not know how to create:\n%s", head.Kind, doc))
		}
		created = append(created, strings.TrimSpace(head.Kind+" "+ns))
	}
}

// decodeAndCreate decodes doc strictly into a T and creates it.
func decodeAndCreate[T any](ctx context.Context, doc []byte, create func(context.Context, *T, metav1.CreateOptions) (*T, error)) {
	var o T
	Expect(yaml.UnmarshalStrict(doc, &o)).To(Succeed(), "%s", doc)
	_, err := create(ctx, &o, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating what --print-rbac printed:\n%s", doc)
}

// serviceAccountToken makes a service account in kube-system (bound to
// nothing) and a token for it.
func serviceAccountToken(ctx context.Context, c kubernetes.Interface, sa string) string {
	_, err := c.CoreV1().ServiceAccounts("kube-system").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	hours := int64(4 * 3600)
	tr, err := c.CoreV1().ServiceAccounts("kube-system").CreateToken(ctx, sa, &authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{ExpirationSeconds: &hours}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return tr.Status.Token
}

func writeKubeconfig(server, token string) string {
	p := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(os.WriteFile(p, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "`+server+`", insecure-skip-tls-verify: true}}]
users: [{name: observer, user: {token: "`+token+`"}}]
contexts: [{name: c, context: {cluster: c, user: observer}}]
current-context: c
`), 0o600)).To(Succeed())
	return p
}

// recordingProxy stands between the observer and the API server and
// records the method and path of every request.
type recordingProxy struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen map[string]int
}

func newRecordingProxy(target string) *recordingProxy {
	u, err := url.Parse(target)
	Expect(err).NotTo(HaveOccurred())
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // test proxy to the test cluster
	rp.FlushInterval = -1                                                                  // watches stream
	p := &recordingProxy{seen: map[string]int{}}
	p.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen[r.Method+" "+r.URL.Path]++
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	return p
}

func (p *recordingProxy) URL() string { return p.srv.URL }
func (p *recordingProxy) Close()      { p.srv.Close() }

// Writes are the requests that were not reads.
func (p *recordingProxy) Writes() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for k := range p.seen {
		if !strings.HasPrefix(k, "GET ") && !strings.HasPrefix(k, "HEAD ") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func (p *recordingProxy) Reads() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for k, c := range p.seen {
		if strings.HasPrefix(k, "GET ") {
			n += c
		}
	}
	return n
}

func (p *recordingProxy) Summary() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for k, c := range p.seen {
		out = append(out, fmt.Sprintf("%s ×%d", k, c))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// tunnelSet forwards local ports to a node's loopback port, as an
// operator's SSH tunnel to a control plane would; to a node not (yet)
// there, or a port nothing listens on, it closes the connection at once.
type tunnelSet struct {
	kc *kindcluster.Cluster
	ls []net.Listener
}

func (t *tunnelSet) Open(node, port string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	t.ls = append(t.ls, l)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go t.forward(c, node, port)
		}
	}()
	return l.Addr().String()
}

func (t *tunnelSet) forward(c net.Conn, node, port string) {
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	pid, err := t.kc.PID(ctx, node)
	if err != nil {
		return
	}
	up, err := nodeaccess.Dial(ctx, pid, "tcp", "127.0.0.1:"+port)
	if err != nil {
		return
	}
	defer up.Close()
	go func() { _, _ = io.Copy(up, c) }()
	_, _ = io.Copy(c, up)
}

func (t *tunnelSet) Close() {
	for _, l := range t.ls {
		l.Close()
	}
}

// foreignObserver is `handover observe --kubeconfig` in a process of its
// own, with no way to Docker.
type foreignObserver struct {
	cmd *exec.Cmd
	dir string
	log *testenv.LockedBuffer
}

func startForeignObserver(ctx context.Context, kubeconfig string, managerURLs []string, out string) *foreignObserver {
	dir := reportsDir(out)
	Expect(os.RemoveAll(dir)).To(Succeed())
	args := []string{"observe", "--kubeconfig", kubeconfig, "--out", dir, "--probe-lbs"}
	for _, m := range managerURLs {
		args = append(args, "--manager", m)
	}
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = append(os.Environ(), "DOCKER_HOST=unix:///nonexistent/docker.sock", "KUBECONFIG=/nonexistent")
	log := &testenv.LockedBuffer{}
	cmd.Stdout, cmd.Stderr = io.MultiWriter(GinkgoWriter, log), io.MultiWriter(GinkgoWriter, log)
	Expect(cmd.Start()).To(Succeed())
	Eventually(func() bool { return hasRunStart(dir) }).WithTimeout(time.Minute).WithPolling(time.Second).Should(BeTrue(), "observe did not start")
	return &foreignObserver{cmd: cmd, dir: dir, log: log}
}

func hasRunStart(dir string) bool {
	evs, _ := timeline.ReadFile(filepath.Join(dir, "timeline.jsonl"))
	for _, e := range evs {
		if e.Kind == timeline.RunStart {
			return true
		}
	}
	return false
}

// stop ends the observation with Ctrl-C and returns its exit code.
func (o *foreignObserver) stop() (int, string) {
	Expect(o.cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
	err := o.cmd.Wait()
	AddReportEntry("reports", o.dir)
	// Its own guard refuses a write before it leaves the process, so the
	// proxy never sees one: its log must not show one refused either.
	Expect(o.log.String()).NotTo(ContainSubstring("read-only: refused"), "the observer tried to write")
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), o.dir
	}
	Expect(err).NotTo(HaveOccurred())
	return 0, o.dir
}

func observeForeignWhile(ctx context.Context, kubeconfig string, managerURLs []string, out string, args ...string) (int, string, error) {
	ob := startForeignObserver(ctx, kubeconfig, managerURLs, out)
	runErr := runHandover(ctx, args...)
	time.Sleep(20 * time.Second) // the hand-off's aftermath: leases settle, load balancers resync
	code, dir := ob.stop()
	return code, dir, runErr
}

// provenOverlaps are the mutual-exclusion violations seen (not unproven).
func provenOverlaps(dir string) []string {
	var out []string
	for _, r := range resultsIn(dir) {
		if r.Check == checks.MutualExclusion && !r.Passed && !r.Unproven() {
			for _, v := range r.Violations {
				out = append(out, r.Subject+": "+v.Message+" ("+strings.Join(v.Sources, ", ")+")")
			}
		}
	}
	return out
}

// skippedIn are the results not judged, check/subject: why.
func skippedIn(dir string) map[string]string {
	out := map[string]string{}
	for _, r := range resultsIn(dir) {
		if r.Passed && r.Skipped != "" {
			out[r.Check+"/"+r.Subject] = r.Skipped
		}
	}
	return out
}
