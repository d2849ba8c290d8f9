package awsapi

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
)

// Error is an AWS error answer: a status, the code the SDK hands its caller
// (awserr.Error's Code) and a message. Fault names the simulated cloud's
// knob behind it, if one is, for the audit.
type Error struct {
	Status  int
	Code    string
	Message string
	Fault   string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf is a client error (400) with code.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Code: code, Message: fmt.Sprintf(format, args...)}
}

// The errors every query API answers, with the status and text AWS gives
// them ("Common Errors" in each service's API reference, e.g. Elastic Load
// Balancing's; EC2's "Error codes for the Amazon EC2 API" gives EC2 its own
// AuthFailure and UnauthorizedOperation, and RequestLimitExceeded for
// throttling).
func errInvalidAction(action string) *Error {
	return Errorf("InvalidAction", "The action %s is not valid for this web service.", action)
}

func errMissingAction() *Error {
	return Errorf("MissingAction", "The request must contain the parameter Action.")
}

func errMissingToken() *Error {
	return &Error{Status: http.StatusForbidden, Code: "MissingAuthenticationToken",
		Message: "The request must contain either a valid (registered) AWS access key ID or X.509 certificate."}
}

func errIncompleteSignature(format string, args ...any) *Error {
	return Errorf("IncompleteSignature", format, args...)
}

func errUnknownKey() *Error {
	return &Error{Status: http.StatusForbidden, Code: "InvalidClientTokenId",
		Message: "The security token included in the request is invalid."}
}

func errSignature() *Error {
	return &Error{Status: http.StatusForbidden, Code: "SignatureDoesNotMatch",
		Message: "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method."}
}

// errPayloadHash: the body is not the one signed. 403, as a signature
// that does not cover the body is no signature.
func errPayloadHash() *Error {
	return &Error{Status: http.StatusForbidden, Code: "SignatureDoesNotMatch",
		Message: "The request's X-Amz-Content-Sha256 header is not the SHA-256 of its body (UNSIGNED-PAYLOAD is for S3 only)."}
}

func errExpired(format string, args ...any) *Error {
	return Errorf("RequestExpired", format, args...)
}

// writeError writes e in the protocol's error envelope: EC2's
// <Response><Errors><Error>, the query protocol's <ErrorResponse><Error>
// (what aws-sdk-go's ec2query and query UnmarshalError read).
func writeError(w http.ResponseWriter, p Protocol, e *Error, requestID string) {
	type detail struct {
		Type    string `xml:"Type,omitempty"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	if p == JSON11 {
		// aws-sdk-go's jsonrpc reads the code from __type (after any '#')
		// and the message from message.
		raw, _ := json.Marshal(map[string]string{"__type": e.Code, "message": e.Message})
		w.Header().Set("Content-Type", jsonContentType)
		w.Header().Set("X-Amzn-Requestid", requestID)
		w.WriteHeader(e.Status)
		_, _ = w.Write(raw)
		return
	}
	var body any
	if p == EC2Query {
		body = struct {
			XMLName   xml.Name `xml:"Response"`
			Errors    []detail `xml:"Errors>Error"`
			RequestID string   `xml:"RequestID"`
		}{Errors: []detail{{Code: e.Code, Message: e.Message}}, RequestID: requestID}
	} else {
		kind := "Sender"
		if e.Status >= 500 {
			kind = "Receiver"
		}
		body = struct {
			XMLName   xml.Name `xml:"ErrorResponse"`
			Error     detail   `xml:"Error"`
			RequestID string   `xml:"RequestId"`
		}{Error: detail{Type: kind, Code: e.Code, Message: e.Message}, RequestID: requestID}
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("X-Amzn-Requestid", requestID)
	w.WriteHeader(e.Status)
	_, _ = w.Write([]byte(xml.Header))
	_ = xml.NewEncoder(w).Encode(body)
}
