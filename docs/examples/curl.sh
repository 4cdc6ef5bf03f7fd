# BASE is where the service runs; TOKEN a super administrator's token (`npm run -s token -- --sub local-admin`).
auth="Authorization: Bearer $TOKEN"

# Create a tenant; its first OWNER is invited by email.
curl -s -X POST "$BASE/admin/tenants" -H "$auth" -H 'Content-Type: application/json' \
  -d '{"name":"Shelbyville High","slug":"shelbyville","owner":{"email":"principal@shelbyville.example"}}'
echo

# Every error has the same shape, whatever the language of the caller.
curl -s "$BASE/admin/tenants?limit=0" -H "$auth"
echo

# The contract, for code generators and API tools.
curl -s "$BASE/openapi.json" | head -c 40
echo
