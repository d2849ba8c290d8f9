#!/bin/sh
# kubeadm as an Azure VM's provisioning runs it on an azure cluster's
# nodes: before the node joins, containerd gets the images of
# cloud-provider-azure's managers that handover built (they are in no node
# image, and there is no registry to pull them from), so the chart's pods
# start on any node at once. Mounted ahead of the node image's kubeadm;
# every other use of kubeadm passes through unchanged.
set -eu
case "${1:-}" in
init | join)
	for a in /var/lib/handover/azure-images/*.tar; do
		[ -e "$a" ] || continue
		ctr --namespace=k8s.io images import --all-platforms --no-unpack "$a" >/dev/null
	done
	;;
esac
exec /usr/bin/kubeadm "$@"
