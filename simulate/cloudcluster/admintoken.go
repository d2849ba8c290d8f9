package cloudcluster

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/cloudserver"
)

// adminTokenFile holds the cloud's admin token in the cluster's state dir
// on the host (0600, as cloud-config.json beside it). Unlike
// cloud-config.json it is mounted into no node: only handover on the host
// arms faults, terminates instances and reads the audit.
const adminTokenFile = "admin-token"

// maxAdminTokenFile bounds the file: 64 hex characters and a newline.
const maxAdminTokenFile = 4 << 10

func writeAdminToken(dir string) (string, error) {
	token, err := cloudserver.NewToken()
	if err != nil {
		return "", err
	}
	if err := privatefs.WriteFile(filepath.Join(dir, adminTokenFile), []byte(token+"\n")); err != nil {
		return "", fmt.Errorf("writing the cloud's admin token: %w", err)
	}
	return token, nil
}

// AdminToken is the admin token of a cluster's simulated cloud.
func AdminToken(cluster string) (string, error) {
	return ReadAdminToken(filepath.Join(StateDir(cluster), adminTokenFile))
}

// ReadAdminToken reads an admin token file, refusing one too short to be
// a token.
func ReadAdminToken(path string) (string, error) {
	raw, err := boundedfile.Read(path, maxAdminTokenFile)
	if err != nil {
		return "", fmt.Errorf("the simulated cloud's admin token: %w", err)
	}
	token := strings.TrimSpace(string(raw))
	if len(token) < 32 {
		return "", fmt.Errorf("the simulated cloud's admin token %s: shorter than 32 characters", path)
	}
	return token, nil
}
