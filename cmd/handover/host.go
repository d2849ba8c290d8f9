package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/clusters/host"
	"github.com/handover-sh/handover/internal/exitcode"
)

func newHostCommand(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "host", Short: "Inspect and prepare this machine"}
	c.AddCommand(&cobra.Command{
		Use:   "prepare",
		Short: "Install and start Docker, and work around a short capability bounding set",
		Long: `prepare makes this machine able to run kind nodes. Each step checks first and
does nothing if it is not needed:
  - on a Debian host without Docker, installs Debian's docker.io, and
    debootstrap and gcc where the image build lacks them;
  - starts dockerd if it is not answering (through systemd where systemd runs
    the host, otherwise as a background process logging to ` + host.DockerLog + `);
  - if the capability bounding set lacks capabilities that --privileged asks
    for (this makes runc fail with "unable to apply caps"), installs a small
    runtime wrapper that drops them from each container's spec, and registers
    it as Docker's default runtime. It says so before it writes
    /etc/docker/daemon.json, keeps the file as it was in
    /etc/docker/daemon.json.before-handover, and replaces it whole; a default
    runtime the host already had (crun, nvidia, a runc of its own) stays in
    use behind the wrapper; ` + "`handover host restore`" + ` undoes it;
  - on cgroup v1 hosts, mounts enabled controllers the host left unmounted
    (unmounted, they are shared by every node instead of scoped to each);
  - raises inotify limits that several nested kubelets need.
It needs root for the changes it makes.`,
		Args: cobra.NoArgs,
		RunE: failsAs(exitcode.Infrastructure, func(cmd *cobra.Command, _ []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			g.logger.V(0).Info("Preparing host ...")
			done, err := host.Prepare(cmd.Context(), host.Options{Logger: g.logger, WrapperSource: self})
			if err != nil {
				return err
			}
			if len(done) == 0 {
				g.logger.V(0).Info("Host already prepared: nothing to do.")
			}
			return nil
		}),
	})
	c.AddCommand(&cobra.Command{
		Use:   "restore",
		Short: "Undo what prepare changed in Docker's configuration",
		Long: `restore puts /etc/docker/daemon.json back as it was before ` + "`host prepare`" + `
changed it (or removes it, if there was none), removes the runtime wrapper and
reloads dockerd (SIGHUP, only to the process /var/run/docker.pid names if it
runs as dockerd: a stale file is refused). Docker and the Debian packages prepare installed stay; the
kernel settings kind nodes need are put back when the last cluster is deleted.`,
		Args: cobra.NoArgs,
		RunE: failsAs(exitcode.Infrastructure, func(cmd *cobra.Command, _ []string) error {
			done, err := host.Restore(cmd.Context(), host.Options{Logger: g.logger})
			for _, d := range done {
				g.logger.V(0).Info(" • " + d)
			}
			if err == nil && len(done) == 0 {
				g.logger.V(0).Info("Nothing to restore: host prepare changed nothing in Docker's configuration.")
			}
			return err
		}),
	})
	return c
}
