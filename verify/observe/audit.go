package observe

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/timeline"
)

// auditEvent is the part of an audit.k8s.io/v1 Event the observer reads.
type auditEvent struct {
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
	SourceIPs []string `json:"sourceIPs"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	StageTimestamp time.Time `json:"stageTimestamp"`
	Stage          string    `json:"stage"`
}

// auditWrite turns one audit log line into an api.write event attributed
// to a manager and a cloud controller; ok is false for lines that are not
// a completed write by a manager's cloud controller.
func auditWrite(line []byte, node string) (timeline.Event, bool) {
	var a auditEvent
	if json.Unmarshal(line, &a) != nil || a.Stage != "ResponseComplete" || a.ObjectRef == nil {
		return timeline.Event{}, false
	}
	manager, client := managerClient(a.UserAgent)
	if manager == "" {
		return timeline.Event{}, false
	}
	controller := clientController(manager, client, a.Verb, a.ObjectRef.Resource)
	if controller == "" {
		return timeline.Event{}, false
	}
	resource := a.ObjectRef.Resource
	if a.ObjectRef.Subresource != "" {
		resource += "/" + a.ObjectRef.Subresource
	}
	name := a.ObjectRef.Name
	if a.ObjectRef.Namespace != "" {
		name = a.ObjectRef.Namespace + "/" + name
	}
	code := ""
	if a.ResponseStatus != nil {
		code = strconv.Itoa(a.ResponseStatus.Code)
	}
	return timeline.Event{Time: a.StageTimestamp, Source: "api-audit", Kind: timeline.APIWrite, Manager: manager, Controller: controller,
		Instance: node, Attrs: map[string]string{"verb": a.Verb, "resource": resource, "name": name, "code": code,
			"user": a.User.Username, "userAgent": a.UserAgent, "sourceIP": strings.Join(a.SourceIPs, ",")}}, true
}

// managerClient splits a manager's user agent,
// "kube-controller-manager/v1.30.14 (linux/amd64) kubernetes/abc/system:serviceaccount:kube-system:service-controller"
// or "cloud-controller-manager/v0.31.4 (linux/amd64) kubernetes/abc/service-controller",
// into the manager and the client name its controller asked for.
func managerClient(ua string) (manager, client string) {
	bin, _, _ := strings.Cut(ua, "/")
	m, ok := managers.Manager(bin)
	if !ok {
		return "", ""
	}
	client = ua[strings.LastIndex(ua, "/")+1:]
	return m, strings.TrimPrefix(client, "system:serviceaccount:kube-system:")
}

// clientController names the controller behind a client. Both managers
// share "node-controller" among several controllers; only what one of them
// alone does is attributed: deleting a Node (cloud-node-lifecycle) and, in
// the cloud-controller-manager, updating one (cloud-node: ProviderID,
// addresses, the uninitialized taint).
func clientController(manager, client, verb, resource string) string {
	switch client {
	case "service-controller":
		return "service-lb-controller"
	case "route-controller":
		return "node-route-controller"
	case "node-controller":
		if resource != "nodes" {
			return ""
		}
		if verb == "delete" {
			return "cloud-node-lifecycle-controller"
		}
		if manager == "cloud-controller-manager" {
			return "cloud-node-controller"
		}
	}
	return ""
}
