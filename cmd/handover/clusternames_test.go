package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/handover-sh/handover/clusters/host"
	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/internal/exitcode"
)

// requireDocker skips, saying so, where no Docker engine answers: these
// tests only list containers.
func requireDocker(t *testing.T) {
	t.Helper()
	if !host.DockerReachable(context.Background()) {
		t.Skip("SKIPPING: Docker is not reachable (run `handover host prepare`); the command would exit 3")
	}
}

// A name no cluster has is the user's input (2), and the message names
// the commands that list and make clusters. Nothing is made or changed.
func TestNoSuchClusterIsBadInput(t *testing.T) {
	requireDocker(t)
	const missing = "handover-test-no-such-cluster"
	out := t.TempDir()
	for name, args := range map[string][]string{
		"add-node":    {"cluster", "add-node", "--name", missing},
		"remove-node": {"cluster", "remove-node", "--name", missing, missing + "-worker"},
		"kubeconfig":  {"cluster", "kubeconfig", "--name", missing},
		"migrate":     {"migrate", "--name", missing, "--out", out, "--observe=false"},
		"observe":     {"observe", "--name", missing, "--out", out, "--for", "1s"},
	} {
		t.Run(name, func(t *testing.T) {
			err := runCLI(t, args...)
			if code := exitcode.Of(err); code != exitcode.BadInput {
				t.Errorf("exit %d, want %d (%v)", code, exitcode.BadInput, err)
			}
			for _, want := range []string{`no cluster named "` + missing + `"`, "`handover cluster list`", "`handover cluster create --name " + missing + "`"} {
				if !strings.Contains(errString(err), want) {
					t.Errorf("%v does not say %s", err, want)
				}
			}
		})
	}
}

// A cluster without a simulated cloud (or none at all) has no fault
// knobs: bad input, naming how to list clusters and make one with a cloud.
func TestFaultsOfNoCloudIsBadInput(t *testing.T) {
	err := runCLI(t, "simcloud", "faults", "--name", "handover-test-no-such-cluster")
	if code := exitcode.Of(err); code != exitcode.BadInput {
		t.Errorf("exit %d, want %d (%v)", code, exitcode.BadInput, err)
	}
	for _, want := range []string{"has no simulated cloud", "`handover cluster list`", "--cloud in-tree"} {
		if !strings.Contains(errString(err), want) {
			t.Errorf("%v does not say %s", err, want)
		}
	}
}

// Names given wrong are bad input however they are wrapped; any other
// failure keeps its class.
func TestNamesGivenWrongAreBadInput(t *testing.T) {
	for _, c := range []struct {
		err  error
		want exitcode.Code
	}{
		{fmt.Errorf("opening: %w", kindcluster.ErrNoCluster), exitcode.BadInput},
		{fmt.Errorf("creating: %w", kindcluster.ErrClusterExists), exitcode.BadInput},
		{fmt.Errorf("removing: %w", kindcluster.ErrNoNode), exitcode.BadInput},
		{errors.New("listing nodes of cluster \"c\": Cannot connect to the Docker daemon"), exitcode.Red},
		{exitcode.AsInfrastructure(errors.New("docker")), exitcode.Infrastructure},
	} {
		if got := exitcode.Of(byName(c.err)); got != c.want {
			t.Errorf("%v: exit %d, want %d", c.err, got, c.want)
		}
	}
}

// cluster list prints the names --name takes, one a line.
func TestClusterList(t *testing.T) {
	requireDocker(t)
	out, err := runCLIOut(t, "cluster", "list")
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l != "" && l != "No kind clusters found." && !name.MatchString(l) {
			t.Errorf("not a cluster name: %q in\n%s", l, out)
		}
	}
}
