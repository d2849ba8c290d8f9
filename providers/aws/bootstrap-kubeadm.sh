#!/bin/sh
# kubeadm as an EC2 instance's bootstrap runs it: cloud-init first renders
# the instance's metadata into the kubeadm configuration, then kubeadm
# runs. cluster-api's AWS templates name a node
# '{{ ds.meta_data.local_hostname }}': under the VPC's default DHCP options
# that is the instance's private DNS name, the name the in-tree aws kubelet
# registers under (EC2's PrivateDnsName, ip-<address>.<region>.compute.internal).
# Under a custom domain-name local-hostname ends in that domain instead, the
# in-tree kubelet's Node is not the one kubeadm waits for, and a cluster that
# runs in tree there names its nodes as EKS's bootstrap does, by EC2's name
# (amazon-eks-ami#1264): this bootstrap fills in that name, formed from the
# metadata's local-ipv4 and region as EC2 forms it. Mounted ahead of the node
# image's kubeadm on an aws cluster's nodes; every other use of kubeadm
# passes through unchanged.
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
	ip=$($get -H "X-aws-ec2-metadata-token: $token" "$imds/meta-data/local-ipv4")
	region=$($get -H "X-aws-ec2-metadata-token: $token" "$imds/meta-data/placement/region")
	name="ip-$(echo "$ip" | tr . -).$region.compute.internal"
	case "$ip:$region:$name" in
	:* | *::* | *[!a-z0-9.:-]*) echo "kubeadm bootstrap: the instance metadata's local-ipv4 '$ip' and region '$region' make no node name: '$name'" >&2; exit 1 ;;
	esac
	sed -i "s/{{ ds.meta_data.local_hostname }}/$name/g" "$conf"
fi
exec /usr/bin/kubeadm "$@"
