// Package nodeimage builds kind node images with no registry and no internet:
// a Debian root file system from debootstrap, Kubernetes, etcd, CoreDNS and
// pause built from the Go module proxy, container images assembled with
// go-containerregistry and preloaded into the node's containerd, and kind's
// base-image files read from the sigs.k8s.io/kind module. Every artifact is
// cached under a key derived from its inputs, so a warm rebuild only checks.
package nodeimage
