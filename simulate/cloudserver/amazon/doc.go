// Package amazon is the simulated cloud as Amazon's APIs show it: EC2, the
// classic Elastic Load Balancing API and the instance metadata service,
// answering the aws providers' real code (the in-tree provider and
// cloud-provider-aws) over the same instances, load balancers and routes
// that handover's own provider sees.
//
// Every AWS call becomes calls of the simulated cloud's own API, made as
// the component the signing key was issued to: the cloud's audit, fault
// knobs, credential scopes and persistence apply to AWS callers unchanged.
// What only AWS has — security groups, tags on instances and route tables,
// an instance's source/destination check — is kept here. The protocol is
// awsapi's.
package amazon
