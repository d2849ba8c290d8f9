package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"k8s.io/client-go/rest"
)

// execPlugin says, before anything is contacted, that the kubeconfig's
// user runs a command for its credentials, and which: client-go runs it
// at the first request, as this process's user (root on a CI runner). With
// noExec such a kubeconfig is refused instead.
func execPlugin(w io.Writer, kubeconfig string, rc *rest.Config, noExec bool) error {
	e := rc.ExecProvider
	if e == nil {
		return nil
	}
	command := commandLine(e.Command, e.Args)
	if noExec {
		return fmt.Errorf("kubeconfig %s runs an exec plugin for its credentials (%s): refused by --no-exec; give a kubeconfig with a token or a client certificate", kubeconfig, command)
	}
	var env []string
	for _, v := range e.Env {
		env = append(env, v.Name)
	}
	with := ""
	if len(env) > 0 {
		with = " with " + strings.Join(env, ", ") + " set"
	}
	_, err := fmt.Fprintf(w, "kubeconfig %s runs an exec plugin for its credentials, as uid %d: %s%s (--no-exec refuses it)\n", kubeconfig, os.Getuid(), command, with)
	return err
}

// commandLine prints a command and its arguments, each quoted where a
// shell would split or expand it.
func commandLine(name string, args []string) string {
	out := make([]string, 0, 1+len(args))
	for _, a := range append([]string{name}, args...) {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`;&|<>*?()[]{}~#!") {
			a = strconv.Quote(a)
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}
