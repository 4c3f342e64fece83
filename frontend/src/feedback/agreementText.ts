/** What α was measured on; before any item has two answers, why there is nothing yet (an annotator's
 * lone answers do not count, so "(0 answers)" after three of them read as a bug). */
export function agreementBasis(units: number, values: number): string {
  if (units === 0)
    return "no item has two answers yet: agreement is measured where two or more annotators answered";
  return `over ${units} ${units === 1 ? "item" : "items"} with two or more answers (${values} answers in them)`;
}
