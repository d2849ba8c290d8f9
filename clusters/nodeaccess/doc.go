// Package nodeaccess reaches into a node container from the host without
// starting a process: it reads and writes the node's files through
// /proc/PID/root and dials from the node's network namespace. handover runs
// as root beside the Docker engine, so both are plain system calls; reaching
// a node through `docker exec` instead costs a runc exec and a process in
// the node every time (a join wrote a dozen files that way: seconds each on
// a loaded host).
package nodeaccess
