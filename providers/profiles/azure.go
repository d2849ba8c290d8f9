package profiles

// azureProfiles: sigs.k8s.io/cloud-provider-azure and the in-tree azure
// provider.
var azureProfiles = []Profile{}
