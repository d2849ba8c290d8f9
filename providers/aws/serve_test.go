package aws

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

func TestAWSFlagsRefuseHalfAConfiguration(t *testing.T) {
	for name, tc := range map[string]struct {
		flags faceFlags
		want  string
	}{
		"metadata without keys":    {faceFlags{imdsListen: []string{"127.0.0.1:0"}}, "need --aws-keys"},
		"a node network not CIDR":  {faceFlags{keys: "k.json", listen: []string{"127.0.0.1:0"}, nodeNetwork: "172.18.0.0"}, "--node-network"},
		"no route table":           {faceFlags{keys: "k.json", listen: []string{"127.0.0.1:0"}, nodeNetwork: "172.18.0.0/16"}, "--aws-route-tables 0"},
		"a DHCP domain not a name": {faceFlags{keys: "k.json", listen: []string{"127.0.0.1:0"}, nodeNetwork: "172.18.0.0/16", routeTables: 1, dhcpDomain: "Corp_Example"}, "--aws-dhcp-domain"},
		"a VPC of route tables":    {faceFlags{keys: "k.json", listen: []string{"127.0.0.1:0"}, nodeNetwork: "172.18.0.0/16", routeTables: 100}, "--aws-route-tables 100"},
	} {
		if _, err := tc.flags.Asked(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if on, err := (&faceFlags{}).Asked(); on || err != nil {
		t.Errorf("no AWS flags: %v, %v", on, err)
	}
}

func TestAWSFaceOpensOverTheCloud(t *testing.T) {
	dir := t.TempDir()
	key, err := amazon.NewKey("kube-controller-manager")
	if err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(dir, "keys.json")
	if err := amazon.WriteKeys(keys, []awsapi.Key{key}); err != nil {
		t.Fatal(err)
	}
	s, err := cloudserver.New(cloudserver.Options{StatePath: filepath.Join(dir, "state.json"), Token: strings.Repeat("t", 32), AdminToken: strings.Repeat("a", 32)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f := faceFlags{keys: keys, listen: []string{"127.0.0.1:0"}, imdsListen: []string{"127.0.0.1:0"}, nodeNetwork: "172.18.0.0/16", routeTables: 1}
	face, err := f.Open(cloudserver.FaceInput{Cloud: s, Token: strings.Repeat("t", 32), Cluster: "c", StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer face.Close()
	if len(face.Endpoints) != 2 || face.Endpoints[0].Handler == nil || face.Endpoints[1].Handler == nil {
		t.Errorf("endpoints %+v", face.Endpoints)
	}
}
