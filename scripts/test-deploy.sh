#!/usr/bin/env bash
# Validates the deployment files without a Docker engine or a cluster:
#  - docker-compose.yml with compose-go (the loader docker compose v2 uses):
#    the file must load, and run two kgmem servers behind one port;
#  - deploy/kubernetes/*.yaml with kubeconform (Go proxy) in strict mode
#    against Kubernetes' own JSON schemas (PyPI kubernetes-validate), and a
#    deliberately broken copy must be rejected (the validator is live).
# Installs what it lacks under ~/.cache/kgmem/deploy.
set -euo pipefail
cd "$(dirname "$0")/.."

k8s_version=1.37.0
kubeconform_version=v0.8.0
validate_version=1.37.0
cache="${HOME}/.cache/kgmem/deploy"
mkdir -p "$cache/bin"

# Compose: load, then check the shape.
resolved="$(mktemp)"
trap 'rm -f "$resolved"' EXIT
(cd scripts/milvus/compose-check && KGMEM_ADMIN_KEY=validation-only go run . ../../../docker-compose.yml) >"$resolved"
for service in kgmem-a kgmem-b kgmem; do
  grep -q "^    ${service}:$" "$resolved" || { echo "docker-compose.yml: no service ${service}" >&2; exit 1; }
done
grep -q "server kgmem-a:8080" "$resolved" && grep -q "server kgmem-b:8080" "$resolved" ||
  { echo "docker-compose.yml: the load balancer does not send to both servers" >&2; exit 1; }
echo "docker-compose.yml: valid; two servers behind one port"

# Kubernetes: kubeconform against strict standalone schemas.
if [[ ! -x "$cache/bin/kubeconform" ]]; then
  GOBIN="$cache/bin" go install "github.com/yannh/kubeconform/cmd/kubeconform@${kubeconform_version}"
fi
if [[ ! -x "$cache/venv/bin/python" ]] || ! "$cache/venv/bin/pip" show kubernetes-validate 2>/dev/null | grep -q "^Version: ${validate_version}$"; then
  python3 -m venv "$cache/venv"
  "$cache/venv/bin/pip" install --quiet "kubernetes-validate==${validate_version}"
fi
site="$("$cache/venv/bin/python" -c 'import kubernetes_validate, os; print(os.path.dirname(kubernetes_validate.__file__))')"
schemas="$cache/schemas/v${k8s_version}-standalone-strict"
manifests=(deploy/kubernetes/*.yaml)
"$cache/venv/bin/python" scripts/deploy/standalone_schemas.py "$site/kubernetes-json-schema/v${k8s_version}-local-strict" "$schemas" "${manifests[@]}"
kubeconform() {
  "$cache/bin/kubeconform" -strict -summary -kubernetes-version "$k8s_version" \
    -schema-location "$cache/schemas/{{.NormalizedKubernetesVersion}}-standalone-strict/{{.ResourceKind}}{{.KindSuffix}}.json" "$@"
}
kubeconform "${manifests[@]}"
for want in "path: /readyz" "path: /healthz" "kind: PodDisruptionBudget" "preStop:"; do
  grep -q "$want" deploy/kubernetes/kgmem.yaml || { echo "deploy/kubernetes/kgmem.yaml: no ${want}" >&2; exit 1; }
done
broken="$(mktemp --suffix .yaml)"
trap 'rm -f "$resolved" "$broken"' EXIT
sed 's/readinessProbe:/readynessProbe:/' deploy/kubernetes/kgmem.yaml >"$broken"
if kubeconform "$broken" >/dev/null 2>&1; then
  echo "kubeconform accepted a manifest with a misspelt field: the validation is not live" >&2
  exit 1
fi
echo "deploy/kubernetes: valid (Kubernetes ${k8s_version}, strict); a misspelt field is rejected"
