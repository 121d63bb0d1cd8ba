import type { AnswerSink } from "../../src/prometheus/dataPlane.js";
import { parseJsonBytes } from "../../src/util/json.js";

/** A sink that puts every streamed element back: the answer's `data` exactly as Prometheus sent it. */
export function wholeAnswer(): AnswerSink<unknown> {
  const elements: unknown[] = [];
  return {
    element: (raw) => {
      elements.push(parseJsonBytes(raw));
    },
    finish: (data) => {
      if (Array.isArray(data)) return elements;
      if (typeof data === "object" && data !== null && Array.isArray((data as { result?: unknown }).result)) {
        return { ...data, result: elements };
      }
      return data;
    },
  };
}
