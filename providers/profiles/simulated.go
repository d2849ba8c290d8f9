package profiles

// simulatedProfiles: handover's own simulated cloud (simulate/cloud).
var simulatedProfiles = []Profile{}
