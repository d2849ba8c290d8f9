// Package nodeaccess reaches into a node container from the host without
// starting a process: it reads the node's files through /proc/PID/root and
// dials from the node's network namespace. handover runs as root beside
// the Docker engine, so both are plain system calls; polling a node through
// `docker exec` instead costs a docker CLI process, a runc exec and a
// process in the node every time.
package nodeaccess
