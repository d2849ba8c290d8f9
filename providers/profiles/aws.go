package profiles

// awsProfiles: k8s.io/cloud-provider-aws and the in-tree aws provider.
var awsProfiles = []Profile{}
