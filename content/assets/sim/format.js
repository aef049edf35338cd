// @ts-check
// Results as the page shows them: readable numbers, identical to the prerendered table.
//
// The twin of ridgepoint.sims.display (Python), character for character, so that the
// table the build wrote and the one the live sim writes compare as text; a test runs both
// on the same numbers. Both start from the number's shortest round-trip digits (JavaScript's
// String(number), which Python reproduces exactly) and round those digits as decimal text,
// half up, so neither language's binary rounding of ties can make them differ.
//
// A number keeps every digit of its integer part and at most 4 significant digits in all
// (12,346; 592.5; 1.993; 0.006416), with a comma between thousands; below 0.0001 and from
// 10^15 on it is written as 1.235e-5 or 1.235e+15.

const SIGNIFICANT = 4;
const FIXED_FROM = -3; // exponents n (0.digits x 10^n) from -3 to 15 are written out:
const FIXED_TO = 15; // 0.000123 (0.123 x 10^-3) up to 999,999,999,999,999

/**
 * The digits (no leading or trailing zeros) and exponent n of a positive number 0.digits x 10^n.
 * @param {number} number
 * @returns {[string, number]}
 */
function shortest(number) {
  const [mantissa, exponent = "0"] = String(number).split("e");
  const [whole, fraction = ""] = mantissa.split(".");
  const all = whole + fraction;
  const lead = all.length - all.replace(/^0+/, "").length;
  return [all.slice(lead).replace(/0+$/, ""), whole.length + Number(exponent) - lead];
}

/**
 * The digits rounded half up to `keep` digits, and the exponent (one more after 999.. -> 1000..).
 * @param {string} digits
 * @param {number} n
 * @param {number} keep
 * @returns {[string, number]}
 */
function round(digits, n, keep) {
  if (digits.length <= keep) return [digits, n];
  let head = digits.slice(0, keep);
  if (digits[keep] >= "5") {
    const up = String(Number(head) + 1); // at most 15 digits: exact
    if (up.length > head.length) n += 1;
    head = up;
  }
  return [head.replace(/0+$/, ""), n];
}

/** @param {string} whole */
function thousands(whole) {
  return whole.replace(/\B(?=(\d{3})+$)/g, ",");
}

/**
 * @param {unknown} value
 * @returns {string}
 */
export function display(value) {
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (value === null || value === undefined) return "";
  if (typeof value !== "number") return String(value);
  if (value === 0) return "0";
  const sign = value < 0 ? "-" : "";
  let [digits, n] = shortest(Math.abs(value));
  if (n < FIXED_FROM || n > FIXED_TO) {
    [digits, n] = round(digits, n, SIGNIFICANT);
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}e${n - 1 >= 0 ? "+" : "-"}${Math.abs(n - 1)}`;
  }
  [digits, n] = round(digits, n, Math.max(SIGNIFICANT, n));
  const whole = n > 0 ? digits.slice(0, n).padEnd(n, "0") : "0";
  const fraction = n > 0 ? digits.slice(n) : "0".repeat(-n) + digits;
  return `${sign}${thousands(whole)}${fraction ? `.${fraction}` : ""}`;
}
