package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handover-sh/handover/internal/interrupt"
	"github.com/handover-sh/handover/internal/testenv"
	"github.com/handover-sh/handover/timeline"
)

// mainArgsEnv, set in a child of the test binary, makes it run handover's
// main with these arguments (one a line) instead of the tests.
const mainArgsEnv = "HANDOVER_TEST_MAIN_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(mainArgsEnv); ok {
		os.Args = append([]string{"handover"}, strings.Split(args, "\n")...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A long-running command stopped by a signal exits 128 + its number, as a
// shell reports a process the signal killed: SIGINT 130, SIGTERM 143,
// SIGHUP 129.
func TestASignalledRunExits128PlusTheSignal(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cloud-config.json")
	if err := os.WriteFile(cfg, []byte(`{"url":"http://127.0.0.1","token":"`+strings.Repeat("t", 40)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	admin := filepath.Join(dir, "admin-token")
	if err := os.WriteFile(admin, []byte(strings.Repeat("a", 40)), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"simcloud", "serve", "--cluster", "exit-codes", "--cloud-config", cfg, "--admin-token-file", admin,
		"--pod-network", "10.244.0.0/16", "--listen", "127.0.0.1:0", "--state-dir", dir}
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143, syscall.SIGHUP: 129} {
		if code := runUntilSignalled(t, args, "simcloud for cluster", sig); code != want {
			t.Errorf("%v: exit code %d, want %d", sig, code, want)
		}
	}
}

// runUntilSignalled runs handover's main in a child with args, sends it sig
// once its stderr shows ready, and returns its exit code.
func runUntilSignalled(t *testing.T, args []string, ready string, sig syscall.Signal) int {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), mainArgsEnv+"="+strings.Join(args, "\n"), "HANDOVER_CACHE="+t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	lines := bufio.NewScanner(stderr)
	var said bytes.Buffer
	for !strings.Contains(said.String(), ready) {
		if !lines.Scan() {
			_ = cmd.Wait()
			t.Fatalf("%v ended before it was ready: %s", args, said.String())
		}
		said.WriteString(lines.Text() + "\n")
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err = <-exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("%v did not end within 20 s of %v", args, sig)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode()
}

// observe runs until Ctrl-C: that SIGINT ends its window as asked, so it
// exits with its verdict, not as interrupted.
func TestCtrlCEndsAnObservationAsAsked(t *testing.T) {
	ctx, h, stop := interrupt.Notify(context.Background(), io.Discard, func(int) {})
	defer stop()
	var buf testenv.LockedBuffer
	tl := timeline.NewWriter(&buf)
	done := make(chan error, 1)
	go func() {
		done <- observeWindow(ctx, tl, "observed c", nil, func(context.Context) (stopper, error) { return fakeObservers{tl}, nil })
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(buf.String(), timeline.RunStart) {
		if time.Now().After(deadline) {
			t.Fatal("the window never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if code, interrupted := h.Interrupted(); interrupted {
		t.Fatalf("an observation ended by Ctrl-C counts as interrupted (exit %d)", code)
	}
}
