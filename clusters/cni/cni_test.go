package cni

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

func node(name, cidr, ip string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{PodCIDR: cidr}}
	if ip != "" {
		n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: name}, {Type: corev1.NodeInternalIP, Address: ip}}
	}
	return n
}

func TestDesiredRoutes(t *testing.T) {
	nodes := []*corev1.Node{
		node("b", "10.244.2.0/24", "172.18.0.3"),
		node("self", "10.244.0.0/24", "172.18.0.2"),
		node("a", "10.244.1.0/24", "172.18.0.4"),
		node("no-cidr", "", "172.18.0.5"),
		node("no-ip", "10.244.3.0/24", ""),
		node("v6", "fd00::/64", "fc00::1"),
	}
	got := DesiredRoutes("self", nodes)
	var s []string
	for _, r := range got {
		s = append(s, r.Dst.String()+" via "+r.Via.String())
	}
	want := "10.244.1.0/24 via 172.18.0.4,10.244.2.0/24 via 172.18.0.3"
	if strings.Join(s, ",") != want {
		t.Fatalf("got %v, want %s", s, want)
	}
}

func TestConflistIsValidJSON(t *testing.T) {
	var doc struct {
		Plugins []struct {
			Type string
			IPAM struct{ Ranges [][]struct{ Subnet string } }
		}
	}
	if err := json.Unmarshal(Conflist("10.244.1.0/24"), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Plugins[0].Type != "ptp" || doc.Plugins[0].IPAM.Ranges[0][0].Subnet != "10.244.1.0/24" {
		t.Fatalf("unexpected %+v", doc)
	}
}

func TestManifestParsesAfterKindTemplating(t *testing.T) {
	m := strings.ReplaceAll(Manifest("example/cni:v1"), "{{ .PodSubnet }}", "10.244.0.0/16")
	docs := strings.Split(m, "\n---\n")
	if len(docs) != 4 {
		t.Fatalf("want 4 documents, got %d", len(docs))
	}
	var ds struct {
		Kind string
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Image string
						Args  []string
						Env   []any
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal([]byte(docs[3]), &ds); err != nil {
		t.Fatal(err)
	}
	c := ds.Spec.Template.Spec.Containers[0]
	if ds.Kind != "DaemonSet" || c.Image != "example/cni:v1" || c.Args[0] != "--pod-network=10.244.0.0/16" || len(c.Env) == 0 {
		t.Fatalf("unexpected DaemonSet %+v", ds)
	}
}

func TestRoutesViaCloudTable(t *testing.T) {
	nodes := []*corev1.Node{node("ip-172-18-0-2.r.compute.internal", "", "172.18.0.2"), node("a", "", "172.18.0.4")}
	// A second interface's address, first as a cloud-controller-manager
	// may order them: every one of self's addresses is self.
	nodes[0].Status.Addresses = append([]corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "100.64.7.2"}}, nodes[0].Status.Addresses...)
	self := NodeIPv4s("ip-172-18-0-2.r.compute.internal", nodes)
	if len(self) != 2 || self[1].String() != "172.18.0.2" || NodeIPv4s("nobody", nodes) != nil {
		t.Fatalf("self's addresses: %v", self)
	}
	table := map[string]net.IP{"10.244.1.0/24": net.ParseIP("172.18.0.4"), "10.244.0.0/24": net.ParseIP("172.18.0.2"),
		"10.244.9.0/24": nil, "bad": net.ParseIP("172.18.0.4")}
	got := RoutesVia(self, table)
	if len(got) != 1 || got[0].Dst.String() != "10.244.1.0/24" || got[0].Via.String() != "172.18.0.4" {
		t.Fatalf("got %+v", got)
	}
}

func TestCloudRoutesManifest(t *testing.T) {
	m := CloudRoutesManifest("img:v1", "10.244.0.0/16", "c-external-load-balancer:6443", "/etc/kubernetes/cloud-config.json", "c")
	docs := strings.Split(m, "\n---\n")
	var ds struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Args []string
						Env  []struct{ Name, Value string }
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal([]byte(docs[3]), &ds); err != nil {
		t.Fatal(err)
	}
	c := ds.Spec.Template.Spec.Containers[0]
	args := strings.Join(c.Args, " ")
	if !strings.Contains(args, "--pod-network=10.244.0.0/16") || !strings.Contains(args, "--cloud-config=/etc/kubernetes/cloud-config.json") || !strings.Contains(args, "--cluster-name=c") {
		t.Fatalf("args %v", c.Args)
	}
	if c.Env[0].Name != "CONTROL_PLANE_ENDPOINT" || c.Env[0].Value != "c-external-load-balancer:6443" {
		t.Fatalf("env %+v", c.Env)
	}
	if strings.Contains(m, "{{") {
		t.Fatal("template left unfilled")
	}
	if !strings.Contains(docs[3], "mountPath: /etc/kubernetes/cloud-config.json\n          readOnly: true") ||
		!strings.Contains(docs[3], "path: /etc/kubernetes/cloud-config.json\n          type: File") {
		t.Fatalf("the cloud configuration is not mounted read-only:\n%s", docs[3])
	}
}
