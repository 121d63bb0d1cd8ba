import type { Progress } from "../progress.js";
import { type Budget, type Fittable, type Fitted, type Layout, less, Measure } from "./fit.js";

/**
 * A result with a `note` about the whole of it (what it could not see, what it holds besides its entries),
 * written after `truncated` when the result is cut and before everything else otherwise, so that a client
 * that trims the text from the end keeps it. The result is fitted to the budget less the note. No note:
 * the result as it is.
 */
export function withNote(result: Fittable, note: string | undefined): Fittable {
  if (note === undefined) return result;
  return {
    async fit(budget: Budget, layout: Layout, progress?: Progress): Promise<Fitted> {
      const fitted = await result.fit(less(budget, new Measure(layout).of({ note })), layout, progress);
      const { truncated, ...rest } = fitted.value;
      const value = truncated === undefined ? { note, ...rest } : { truncated, note, ...rest };
      return { ...fitted, value };
    },
  };
}
