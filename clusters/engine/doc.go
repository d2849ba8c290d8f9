// Package engine talks to the Docker Engine through its Go API client, for
// everything handover does repeatedly: one client per process, containers
// listed with their labels in one call, and those lists kept current from
// the engine's event stream instead of re-listed on every poll.
//
// kind keeps the docker CLI for creating and deleting clusters and for log
// export; nothing that polls goes through a process.
package engine
