// `flopcast catalog gpus|fabrics|models|prices [--json]`: the catalogs flopcast reads (built in,
// installed, or --data-dir), as tables or JSON (app/catalog_listing.hpp).
#include <ostream>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/catalog_listing.hpp"

namespace flopcast::cli {

void register_catalog(CLI::App& app, CliContext& ctx) {
  struct Opts {
    std::string what;
    bool json = false;
    OutputFile out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("catalog", "List the catalogs: GPUs, node and fabric types, model presets, prices");
  cmd->add_option("what", o->what, "gpus | fabrics | models | prices")
      ->required()
      ->check(CLI::IsMember({"gpus", "fabrics", "models", "prices"}));
  cmd->add_flag("--json", o->json, "Print the catalog as one JSON document (an array of entries)");
  add_out_flag(*cmd, o->out, "Write the listing to FILE instead of standard output");
  add_force_flag(*cmd, o->out.force, "Overwrite FILE if it exists");
  cmd->callback([&ctx, o] {
    const auto* cat = ctx.catalog();
    if (!cat) return;
    const auto kind = *app::parse_catalog_kind(o->what);  // IsMember above admits only the four
    std::vector<pricing::PriceCatalog> prices;
    if (kind == app::CatalogKind::Prices) {
      scenario::Diagnostics diags;
      auto loaded = app::load_price_listing(ctx.data_dir, diags);
      if (ctx.report(diags) || !loaded) return;
      prices = std::move(*loaded);
    }
    write_output(
        ctx, o->out,
        o->json ? app::catalog_json(*cat, kind, prices).dump(2) + "\n" : app::catalog_text(*cat, kind, prices));
  });
}

}  // namespace flopcast::cli
