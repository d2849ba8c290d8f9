package main

// cloud-provider-aws v1.27's provider, as its aws-cloud-controller-manager
// registers it (cmd/aws-cloud-controller-manager/main.go imports
// pkg/providers/v1 for the "aws" provider).
import _ "k8s.io/cloud-provider-aws/pkg/providers/v1"
