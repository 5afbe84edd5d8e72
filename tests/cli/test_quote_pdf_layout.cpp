// The quote's PDF keeps every table row whole on one page (quote_pdf.hpp: broken_table_rows, the
// layout html_to_pdf prints). Built only with quote_pdf/ (Qt 6 Gui found).
#include <doctest/doctest.h>

#include <string>

#include "cli_runner.hpp"
#include "quote_pdf.hpp"

using namespace flopcast;

TEST_SUITE("cli-quote-pdf-layout") {
  TEST_CASE("quote PDF: no table row is split across two pages, wherever the page ends") {
    // A table of three-line rows after 0 to 23 lines of text: the page ends at every height in a
    // row (once Qt split a row whose first line fitted on the page and moved only rows whose
    // cells all started below it).
    std::string why;
    int split = 0;
    for (int lines = 0; lines < 24; ++lines) {
      std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"></head><body>";
      for (int i = 0; i < lines; ++i) html += "<p>text above the table, line " + std::to_string(i) + "</p>";
      html +=
          "<table border=\"1\" cellspacing=\"0\" cellpadding=\"4\" width=\"100%\"><thead><tr><th>Item</th>"
          "<th>Note</th></tr></thead><tbody>";
      for (int r = 0; r < 40; ++r)
        html += "<tr><td>row " + std::to_string(r) + "</td><td>first line<br>second line<br>third line</td></tr>";
      html += "</tbody></table></body></html>";
      const int n = quote_pdf::broken_table_rows(html, why);
      REQUIRE_MESSAGE(n >= 0, why);
      split += n;
    }
    CHECK(split == 0);
  }

  TEST_CASE("quote PDF: the shipped quotes keep their rows whole") {
    // The A100 plan's bill once ended page 1 with "VAT 6% ... on the total before" and began page 2
    // with "tax".
    const auto p70 = test::run_cli({"quote", test::scenario_file("plan-70b-1t.yaml"), "--plan", "best", "--gpu",
                                    "A100-80G,H800,B200", "--gpus-max", "1024", "--deadline", "60d", "--date",
                                    "2026-12-01", "--format", "html"});
    REQUIRE_MESSAGE(p70.code == cli::kOk, p70.err);
    std::string why;
    CHECK(quote_pdf::broken_table_rows(p70.out, why) == 0);
    for (const char* name : {"quickstart.yaml", "finetune-llama2-70b-lora.yaml", "plan-72b-2t-h800.yaml"}) {
      CAPTURE(name);
      const auto q = test::run_cli({"quote", test::scenario_file(name), "--date", "2026-12-01", "--format", "html"});
      REQUIRE_MESSAGE(q.code == cli::kOk, q.err);
      CHECK(quote_pdf::broken_table_rows(q.out, why) == 0);
    }
  }
}
