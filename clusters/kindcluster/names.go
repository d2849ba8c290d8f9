package kindcluster

import (
	"errors"
	"fmt"

	"sigs.k8s.io/kind/pkg/log"
)

// ErrNoCluster is in the error Open returns for a name no cluster has,
// ErrClusterExists in Preflight's for a name a cluster already has, and
// ErrNoNode in RemoveNode's for a name none of the cluster's Kubernetes
// nodes has (errors.Is): a command tells a name it was given wrong from a
// Docker engine that does not answer.
var (
	ErrNoCluster     = errors.New("no such cluster")
	ErrClusterExists = errors.New("cluster exists")
	ErrNoNode        = errors.New("no such node")
)

// nameError is an error about a cluster's name: its message says what to
// do, and errors.Is matches its kind.
type nameError struct {
	kind error
	msg  string
}

func (e *nameError) Error() string        { return e.msg }
func (e *nameError) Is(target error) bool { return target == e.kind }

func noCluster(name string) error {
	return &nameError{kind: ErrNoCluster, msg: fmt.Sprintf(
		"no cluster named %q: `handover cluster list` names the clusters there are, `handover cluster create --name %s` makes it", name, name)}
}

func noNode(format string, a ...any) error {
	return &nameError{kind: ErrNoNode, msg: fmt.Sprintf(format, a...)}
}

func clusterExists(name string) error {
	return &nameError{kind: ErrClusterExists, msg: fmt.Sprintf(
		"a cluster named %q already exists: delete it with `handover cluster delete --name %s` or pick another --name", name, name)}
}

// List names the kind clusters on this machine, sorted, as `kind get
// clusters` does.
func List() ([]string, error) {
	names, err := newHandle("", log.NoopLogger{}).provider.List()
	if err != nil {
		return nil, fmt.Errorf("listing clusters: %w (is Docker running? `handover host prepare` starts it)", err)
	}
	return names, nil
}

// CheckFree refuses a name a cluster already has, before anything is made
// for a new one (ErrClusterExists).
func CheckFree(name string) error {
	existing, err := newHandle(name, log.NoopLogger{}).provider.ListNodes(name)
	if err != nil {
		return fmt.Errorf("listing existing clusters: %w", err)
	}
	if len(existing) > 0 {
		return clusterExists(name)
	}
	return nil
}
