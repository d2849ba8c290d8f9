package cloudcluster

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/simcloud"
	"github.com/handover-sh/handover/simulate/simcloud/amazon"
	"github.com/handover-sh/handover/simulate/simcloud/awsapi"
)

// A kubelet's AWS key is its node's own: the cloud's audit names the node
// whose key signed, and one node's key is no other node's. The key is
// issued on the node's way in, added to the keys' file the running cloud
// serves (it reads the file again for a key it does not hold), and written
// for that node alone under nodes/NODE/ in the aws state dir.

// kubeletEnvName is a node's kubelet environment file under its own
// directory, mounted at kubeletEnvPath.
const kubeletEnvName = "kubelet.env"

// nodeName is what a node's directory may be named: a container's name.
var nodeName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]*$`)

// keyFileMu serialises this process's additions to a keys' file.
var keyFileMu sync.Mutex

// IssueKubeletKey issues node's kubelet its own key and writes its
// kubelet environment; it returns the file's host path, to mount at
// /etc/default/kubelet in that node only.
func IssueKubeletKey(cluster, node string) (string, error) {
	if !nodeName.MatchString(node) {
		return "", fmt.Errorf("issuing a kubelet key: %q is not a node's name", node)
	}
	key, err := amazon.NewKey("kubelet")
	if err != nil {
		return "", err
	}
	key.Node = node
	dir := awsStateDir(cluster)
	keyFileMu.Lock()
	err = amazon.AddKey(filepath.Join(dir, "keys.json"), key)
	keyFileMu.Unlock()
	if err != nil {
		return "", fmt.Errorf("issuing node %s's kubelet key: %w", node, err)
	}
	nodeDir := filepath.Join(dir, "nodes", node)
	if err := privatefs.MkdirAll(nodeDir); err != nil {
		return "", err
	}
	path := filepath.Join(nodeDir, kubeletEnvName)
	if err := privatefs.WriteFile(path, []byte(kubeletEnv(key))); err != nil {
		return "", err
	}
	return path, nil
}

// kubeletEnv is a kubelet's environment file holding key.
func kubeletEnv(key awsapi.Key) string {
	cfg := amazon.ProviderConfig{Region: simcloud.Region}
	return "KUBELET_EXTRA_ARGS=\n" + strings.Join(append(cfg.Env(key), "AWS_CA_BUNDLE="+awsCAPath), "\n") + "\n"
}
