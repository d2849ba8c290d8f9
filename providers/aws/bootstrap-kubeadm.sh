#!/bin/sh
# kubeadm as an EC2 instance's bootstrap runs it: cloud-init first renders
# the instance's metadata into the kubeadm configuration (cluster-api's AWS
# templates name a node '{{ ds.meta_data.local_hostname }}', the private DNS
# name the in-tree aws kubelet registers under), then kubeadm runs. Mounted
# ahead of the node image's kubeadm on an aws cluster's nodes; every other
# use of kubeadm passes through unchanged.
set -eu
conf=
prev=
for a in "$@"; do
	case "$prev" in --config) conf=$a ;; esac
	case "$a" in --config=*) conf=${a#--config=} ;; esac
	prev=$a
done
placeholder='{{ ds.meta_data.local_hostname }}'
if [ -n "$conf" ] && grep -qF "$placeholder" "$conf"; then
	imds=http://169.254.169.254/latest
	get="curl -fsS --retry 10 --retry-delay 1 --retry-all-errors --max-time 5"
	token=$($get -X PUT -H 'X-aws-ec2-metadata-token-ttl-seconds: 300' "$imds/api/token")
	name=$($get -H "X-aws-ec2-metadata-token: $token" "$imds/meta-data/local-hostname")
	case "$name" in
	'' | *[!a-z0-9.-]*) echo "kubeadm bootstrap: the instance metadata's local-hostname is not a node name: '$name'" >&2; exit 1 ;;
	esac
	sed -i "s/{{ ds.meta_data.local_hostname }}/$name/g" "$conf"
fi
exec /usr/bin/kubeadm "$@"
