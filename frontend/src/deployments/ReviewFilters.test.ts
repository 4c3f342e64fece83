import { describe, expect, it } from "vitest";
import { filterQuery, filterSearch, filtersFrom } from "./ReviewFilters";

describe("review filters in the address", () => {
  it("keeps the set filters, reply backend and fault included, and reads them back", () => {
    const filters = filtersFrom(new URLSearchParams("backend=local&fault=refusal&agent=logistics&junk=1"));
    expect(filters.backend).toBe("local");
    expect(filters.fault).toBe("refusal");
    expect(filters.q).toBe("");
    const search = filterSearch(filters, { batch: "4", episode: null });
    expect(search).toBe("?agent=logistics&backend=local&fault=refusal&batch=4");
    expect(filtersFrom(new URLSearchParams(search))).toEqual(filters);
  });

  it("leaves the address empty with no filter and sends backend and fault to the API", () => {
    const none = filtersFrom(new URLSearchParams(""));
    expect(filterSearch(none)).toBe("");
    const query = filterQuery({ ...none, backend: "openai_compatible", fault: "any" });
    expect(query.toString()).toBe("backend=openai_compatible&fault=any");
  });
});
