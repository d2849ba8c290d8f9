package procs

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestRunsMatchesTheCommandLine(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep to start: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	// Until the child has called exec, its command line is the test's.
	deadline := time.Now().Add(5 * time.Second)
	for !Runs(pid, []string{"sleep", "30"}) {
		if time.Now().After(deadline) {
			t.Fatal("a running sleep 30 is not recognised")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if prog, err := Program(pid); prog != "sleep" || err != nil {
		t.Errorf("program %q (%v), want sleep", prog, err)
	}
	if _, err := Program(1 << 30); err == nil {
		t.Error("a missing process has a program")
	}
	// A pid file left by a dead cloud, now another process's pid.
	if Runs(pid, []string{"simcloud", "serve", "--cluster", "c"}) {
		t.Error("a process with another command line was taken for the cloud")
	}
	if Runs(os.Getpid(), []string{"30"}) || Runs(1<<30, []string{"sleep"}) {
		t.Error("a missing argument or a missing process matched")
	}
}

func TestAliveKnowsAProcessByItsStart(t *testing.T) {
	start, err := StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !Alive(os.Getpid(), start) {
		t.Fatal("this process is not alive")
	}
	if Alive(os.Getpid(), start+1) {
		t.Fatal("another process with this pid taken for this one")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	if Alive(cmd.Process.Pid, start) {
		t.Fatal("an ended process is alive")
	}
}
