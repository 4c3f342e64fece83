import { describe, expect, it } from "vitest";
import { ApiError } from "../api";
import { labelBars, parseCatalogue, problemsByLine, refusedUpload, rowQuery, splitShare, storedText } from "./logic";
import { NO_FILTERS } from "./types";

describe("rowQuery", () => {
  it("leaves out empty filters and trims text", () => {
    expect(rowQuery(NO_FILTERS)).toBe("page=1&page_size=50");
    const query = rowQuery({ split: "test", intent: " refund ", provenance: "corrected", unlabelled: "false", search: " late parcel ", page: 3 });
    expect(query).toBe("split=test&intent=refund&provenance=corrected&unlabelled=false&search=late+parcel&page=3&page_size=50");
  });
});

describe("problemsByLine", () => {
  it("groups the problems of one line in file order", () => {
    const grouped = problemsByLine([
      { line: 7, field: "text", message: "is required" },
      { line: 2, field: "line", message: "is not valid JSON" },
      { line: 7, field: "intents[0]", message: "unknown intent 'x'" },
    ]);
    expect(grouped).toEqual([
      { line: 2, problems: [{ field: "line", message: "is not valid JSON" }] },
      { line: 7, problems: [{ field: "text", message: "is required" }, { field: "intents[0]", message: "unknown intent 'x'" }] },
    ]);
  });
});

describe("refusedUpload", () => {
  it("reads the rows of an upload with no good row", () => {
    const body = {
      detail: "no row of the file could be used; nothing was stored",
      errors: { "line 1.text": ["is required"] },
      row_errors: [{ line: 1, field: "text", message: "is required" }],
    };
    const error = new ApiError(400, body);
    expect(refusedUpload(error)).toEqual({
      rows: [{ line: 1, field: "text", message: "is required" }],
      total: 1,
      refused: 1,
      other: ["no row of the file could be used; nothing was stored"],
    });
  });
  it("counts every refused row, not only the listed ones", () => {
    const listed = Array.from({ length: 500 }, (_, i) => ({ line: i + 1, field: "text", message: "is required" }));
    const body = { detail: "nothing was stored", errors: {}, row_errors: listed, errors_total: 1200, refused: 1100 };
    const refused = refusedUpload(new ApiError(400, body));
    expect([refused.rows.length, refused.total, refused.refused]).toEqual([500, 1200, 1100]);
  });
  it("names a problem of the whole file by its field", () => {
    const error = new ApiError(400, { detail: "Invalid input.", errors: { file: ["the file is larger than 1,000 bytes"] } });
    expect(refusedUpload(error)).toEqual({ rows: [], total: 0, refused: 0, other: ["file: the file is larger than 1,000 bytes"] });
  });
});

describe("labelBars", () => {
  it("scales every bar to the largest and adds the unlabelled rows", () => {
    const bars = labelBars(
      [
        { name: "refund", count: 10, train: 8, dev: 1, test: 1 },
        { name: "delivery", count: 5, train: 4, dev: 1, test: 0 },
      ],
      { count: 2, train: 2, dev: 0, test: 0 },
    );
    expect(bars.map((b) => [b.name, b.count])).toEqual([["refund", 10], ["delivery", 5], ["(unlabelled)", 2]]);
    expect(bars[0].segments.map((s) => s.percent)).toEqual([80, 10, 10]);
    expect(bars[1].segments.map((s) => s.percent)).toEqual([40, 10, 0]);
  });
  it("shows rows marked out of scope as such, not as unlabelled", () => {
    const bars = labelBars(
      [{ name: "refund", count: 4, train: 4, dev: 0, test: 0 }],
      { count: 1, train: 1, dev: 0, test: 0 },
      { count: 3, train: 2, dev: 1, test: 0 },
    );
    expect(bars.map((b) => [b.name, b.count])).toEqual([["refund", 4], ["(out of scope)", 3], ["(unlabelled)", 1]]);
    expect(labelBars([], { count: 0, train: 0, dev: 0, test: 0 }, { count: 2, train: 2, dev: 0, test: 0 })[0].name).toBe("(out of scope)");
  });
  it("draws nothing for an empty version", () => {
    expect(labelBars([], { count: 0, train: 0, dev: 0, test: 0 })).toEqual([]);
  });
});

describe("splitShare", () => {
  it("rounds to a whole percentage", () => {
    expect(splitShare({ train: 8, dev: 1, test: 1 }, "train")).toBe("80 %");
    expect(splitShare({ train: 0, dev: 0, test: 0 }, "dev")).toBe("–");
  });
});

describe("parseCatalogue", () => {
  it("reads one intent a line, the description after the first colon", () => {
    expect(parseCatalogue("warranty_claim: a broken item under warranty: repair or replace\n\n  cancel_subscription \n")).toEqual({
      intents: [
        { name: "warranty_claim", description: "a broken item under warranty: repair or replace" },
        { name: "cancel_subscription", description: "" },
      ],
    });
  });
  it("is null without any intent", () => {
    expect(parseCatalogue(" \n\n")).toBeNull();
  });
});

describe("an upload's outcome in words", () => {
  it("counts the file's rows in the singular or plural, and says what an appended version holds", () => {
    expect(storedText(1, 4, { number: 2, row_count: 75 })).toBe("1 row from the file stored, 4 refused: version v2 holds 75 rows.");
    expect(storedText(74, 0)).toBe("74 rows from the file stored.");
  });
});
