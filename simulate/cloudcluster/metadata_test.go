package cloudcluster

import (
	"reflect"
	"strings"
	"testing"
)

// The redirects handover put in place are found (by cluster) in iptables'
// listing, as the arguments that delete them; others are left alone.
func TestParseMetadataRules(t *testing.T) {
	lines := []string{
		"-P PREROUTING ACCEPT",
		`-A PREROUTING -d 169.254.169.254/32 -i br-0123456789ab -p tcp -m tcp --dport 80 -m comment --comment "handover-instance-metadata:c1" -j DNAT --to-destination 172.18.0.1:4567`,
		"-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER",
		`-A PREROUTING -d 169.254.169.254/32 -j DNAT --to-destination 10.0.0.1:80`,
	}
	got := parseMetadataRules(lines)
	want := map[string][]string{"c1": strings.Fields("-d 169.254.169.254/32 -i br-0123456789ab -p tcp -m tcp --dport 80 -m comment --comment handover-instance-metadata:c1 -j DNAT --to-destination 172.18.0.1:4567")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}
