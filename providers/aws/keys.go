package aws

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// A kubelet's AWS key is its node's own: the cloud's audit names the node
// whose key signed, and one node's key is no other node's. The key is
// issued on the node's way in (the cluster's first nodes as it is created,
// a joining one before its container starts), added to the keys' file the
// running cloud serves (it reads the file again once replaced), and
// written for that node alone under nodes/NODE/ in the aws state dir. It
// is revoked on the node's way out (revokeKubeletKeys); a terminated
// instance's key is refused by the cloud itself.

// kubeletEnvName is a node's kubelet environment file under its own
// directory, mounted at kubeletEnvPath.
const kubeletEnvName = "kubelet.env"

// nodeName is what a node's directory may be named: a container's name.
var nodeName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]*$`)

// keysFile is the keys' file the cluster's cloud serves.
func keysFile(cluster string) string { return filepath.Join(stateDir(cluster), "keys.json") }

// kubeletEnvFile is the host path of node's kubelet environment.
func kubeletEnvFile(cluster, node string) string {
	return filepath.Join(stateDir(cluster), "nodes", node, kubeletEnvName)
}

// issueKubeletKey issues node's kubelet its own key, in place of any it
// held before (a name used again), and writes its kubelet environment; it
// returns the file's host path, to mount at /etc/default/kubelet in that
// node only.
func issueKubeletKey(cluster, node string) (string, error) {
	if !nodeName.MatchString(node) {
		return "", fmt.Errorf("issuing a kubelet key: %q is not a node's name", node)
	}
	key, err := amazon.NewKey(kubeletPrincipal)
	if err != nil {
		return "", err
	}
	key.Node = node
	if err := amazon.AddKey(keysFile(cluster), key); err != nil {
		return "", fmt.Errorf("issuing node %s's kubelet key: %w", node, err)
	}
	path := kubeletEnvFile(cluster, node)
	if err := privatefs.MkdirAll(filepath.Dir(path)); err != nil {
		return "", err
	}
	if err := privatefs.WriteFile(path, []byte(kubeletEnv(key))); err != nil {
		return "", err
	}
	return path, nil
}

// revokeKubeletKeys revokes node's kubelet keys and removes its kubelet
// environment: the cloud refuses the keys from its next call on. A
// cluster whose cloud issued none has none to revoke.
func revokeKubeletKeys(cluster, node string) error {
	if !nodeName.MatchString(node) {
		return fmt.Errorf("revoking a kubelet key: %q is not a node's name", node)
	}
	keys := keysFile(cluster)
	if _, err := os.Stat(keys); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if _, err := amazon.RevokeNodeKeys(keys, node); err != nil {
		return fmt.Errorf("revoking node %s's kubelet key: %w", node, err)
	}
	return os.RemoveAll(filepath.Dir(kubeletEnvFile(cluster, node)))
}

// kubeletEnv is a kubelet's environment file holding key.
func kubeletEnv(key awsapi.Key) string {
	cfg := amazon.ProviderConfig{Region: cloudserver.Region}
	return "KUBELET_EXTRA_ARGS=\n" + strings.Join(append(cfg.Env(key), "AWS_CA_BUNDLE="+caPath), "\n") + "\n"
}
