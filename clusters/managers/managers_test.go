package managers

import (
	"reflect"
	"testing"
)

func TestControllers(t *testing.T) {
	body := "[+]ping ok\n[+]leaderElection ok\n[+]service-lb-controller ok\n" +
		"[-]node-route-controller failed: reason withheld\n[+]cloud-node-lifecycle-controller ok\n" +
		"[+]serviceaccount-token-controller ok\nhealthz check passed\n"
	got := Controllers(body)
	want := map[string]bool{"service-lb-controller": true, "node-route-controller": false,
		"cloud-node-lifecycle-controller": true, "serviceaccount-token-controller": true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Controllers = %v, want %v", got, want)
	}
	// Before 1.28 the cloud controllers' checks have short names.
	old := "[+]ping ok\n[+]service ok\n[-]route failed: reason withheld\n[+]nodeipam ok\n[+]deployment ok\n"
	want = map[string]bool{"service-lb-controller": true, "node-route-controller": false, "node-ipam-controller": true}
	if got := Controllers(old); !reflect.DeepEqual(got, want) {
		t.Fatalf("Controllers(1.27) = %v, want %v", got, want)
	}
	if got := Controllers("connection refused"); len(got) != 0 {
		t.Fatalf("no checks: %v", got)
	}
}

func TestNames(t *testing.T) {
	if got := Names(); !reflect.DeepEqual(got, []string{"cloud-controller-manager", "kube-controller-manager"}) {
		t.Fatalf("Names = %v", got)
	}
}

func TestManagerFromItsBinary(t *testing.T) {
	for bin, want := range map[string]string{
		"kube-controller-manager": "kube-controller-manager", "cloud-controller-manager": "cloud-controller-manager",
		"aws-cloud-controller-manager": "cloud-controller-manager", "openstack-cloud-controller-manager": "cloud-controller-manager",
		"kubelet": "", "kube-scheduler": "", "k3s": "",
	} {
		if got, ok := Manager(bin); got != want || ok != (want != "") {
			t.Errorf("Manager(%q) = %q, %v; want %q", bin, got, ok, want)
		}
	}
}
