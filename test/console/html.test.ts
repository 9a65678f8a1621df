import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { attr, escapeHtml, html, raw, Safe } from "../../src/console/html.js";

describe("html tagged template", () => {
  it("escapes every interpolated string and number, quotes included", () => {
    const evil = `<script>alert("x")</script>' \` &`;
    expect(html`<p title="${evil}">${evil}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; &#96; &amp;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; &#96; &amp;</p>',
    );
    expect(html`${42}`.value).toBe("42");
  });

  it("renders arrays item by item and passes Safe values through", () => {
    const items = ["<a>", html`<b>${"<c>"}</b>`];
    expect(html`<i>${items}</i>`.value).toBe("<i>&lt;a&gt;<b>&lt;c&gt;</b></i>");
    expect(html`${raw("<em>ok</em>")}`.value).toBe("<em>ok</em>");
  });

  it("null, undefined and booleans render as nothing", () => {
    expect(html`a${null}b${undefined}c${false}d${true}e`.value).toBe("abcde");
  });

  it("no string survives escaping with a raw < > \" or '", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const out = html`${s}`.value;
        expect(out).not.toMatch(/[<>"'`]/);
        expect(attr(s)).toBe(escapeHtml(s));
      }),
    );
  });

  it("a Safe is only made by html or raw", () => {
    expect(html`x` instanceof Safe).toBe(true);
    expect(String(html`<p>${"&"}</p>`)).toBe("<p>&amp;</p>");
  });
});
