import { describe, expect, it } from "vitest";
import { parseJsonObject, valueAt } from "../src/json.js";

describe("parseJsonObject", () => {
  it("takes a line that is one JSON object, blanks around it allowed", () => {
    expect(parseJsonObject('{"type":"system","n":1}')).toEqual({ type: "system", n: 1 });
    expect(parseJsonObject('  \t{"a":{"b":[1,2]}}\r ')).toEqual({ a: { b: [1, 2] } });
    expect(parseJsonObject("{}")).toEqual({});
  });

  it("gives nothing, and never throws, for anything else", () => {
    for (const text of ["", "   ", "[1,2]", "null", "42", '"{}"', "{", "}", '{"a":1', '{"a":1}}', "{a:1}", '{"a":1} {"b":2}', 'x{"a":1}', "{\"a\":\"\\x\"}", "{".repeat(10_000) + "}".repeat(10_000)]) {
      expect(() => parseJsonObject(text), text.slice(0, 20)).not.toThrow();
      expect(parseJsonObject(text), text.slice(0, 20)).toBeUndefined();
    }
  });
});

describe("valueAt", () => {
  const object = { type: "result", message: { id: "m-1", content: [{ text: "hi" }] }, "dotted.key": "whole", empty: null };

  it("walks a dotted path, through arrays by index", () => {
    expect(valueAt(object, "type")).toBe("result");
    expect(valueAt(object, "message.id")).toBe("m-1");
    expect(valueAt(object, "message.content.0.text")).toBe("hi");
    expect(valueAt(object, "message")).toBe(object.message);
    expect(valueAt(object, "empty")).toBeNull();
  });

  it("is undefined where the path leaves the object, or runs through a value that is no object", () => {
    expect(valueAt(object, "missing")).toBeUndefined();
    expect(valueAt(object, "message.missing.id")).toBeUndefined();
    expect(valueAt(object, "type.length")).toBeUndefined();
    expect(valueAt(object, "empty.id")).toBeUndefined();
    expect(valueAt(object, "message.content.5.text")).toBeUndefined();
    // A key with a dot in it cannot be named: the path splits at every dot.
    expect(valueAt(object, "dotted.key")).toBeUndefined();
  });
});
