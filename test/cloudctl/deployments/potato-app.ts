// The application the deployment service's end-to-end tests roll out: a Deployment `potato` of two
// replicas and its Service, as YAML for a deployment file's manifests.
export function potatoManifests(image: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: potato
spec:
  replicas: 2
  selector:
    matchLabels: {app: potato}
  template:
    metadata:
      labels: {app: potato}
    spec:
      containers:
        - name: web
          image: ${image}
---
apiVersion: v1
kind: Service
metadata:
  name: potato
spec:
  selector: {app: potato}
  ports:
    - port: 80
`;
}
