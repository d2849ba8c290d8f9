// Package awsapi speaks the AWS wire protocols that the aws cloud providers
// use — EC2's query protocol, the query protocol of Elastic Load Balancing,
// Signature Version 4 and the instance metadata service — so that the real
// provider code (in-tree and cloud-provider-aws) can run against handover's
// simulated cloud through its own [ServiceOverride] configuration.
//
// The wire formats are not written down here: requests are decoded into,
// and responses encoded from, aws-sdk-go's own input and output types, by
// the struct tags its code generator derives from the services' models (the
// tags its query serialiser and XML deserialiser read). The tests hold each
// direction to the SDK: its clients, unchanged, call a server made of this
// package and read what it answers.
package awsapi
