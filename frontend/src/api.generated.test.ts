import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import generated from "./api.generated.ts?raw";
import schemaText from "./api.schema.yaml?raw";

// mase_web/core/tests/test_api_schema_file.py checks the schema against the API; this checks the types
// against the schema, so the pages' types follow an API change only through both files.
describe("api.generated.ts", () => {
  it("is what gen:api makes of the committed api.schema.yaml (run `npm run gen:api` after changing it)", async () => {
    const fresh = COMMENT_HEADER + astToString(await openapiTS(schemaText));
    expect(generated).toBe(fresh);
  });
});
