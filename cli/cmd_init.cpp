// `flopcast init`: writes a first scenario, commented key by key, for a GPU type, a model and a
// GPU count (app/scenario_template.hpp picks a plan that fits); `flopcast simulate` runs it as is.
#include <ostream>

#include "cli_context.hpp"
#include "command_flags.hpp"
#include "flopcast/app/scenario_template.hpp"
#include "spelling.hpp"

namespace flopcast::cli {
namespace {

struct InitOpts {
  app::TemplateRequest request;
  OutputFile out;
};

/// A usage error for a name the catalog does not have: the closest one, or the list.
void unknown_name(CliContext& ctx, const std::string& flag, const std::string& what, const std::string& name,
                  const std::vector<std::string>& known, const std::string& listing) {
  std::string message = flag + ": unknown " + what + " '" + name + "'";
  if (const auto m = closest_spelling(name, known))
    message += " (did you mean '" + *m + "'?)";
  else
    message += " (" + listing + " lists them)";
  ctx.fail(kUsage, message);
}

void run_init(CliContext& ctx, const InitOpts& o) {
  const io::Catalog* cat = ctx.catalog();
  if (!cat) return;
  const auto& r = o.request;
  if (!r.gpu.empty() && !cat->find_gpu(r.gpu))
    return ctx.fail(kUsage, "--gpu: unknown GPU '" + r.gpu + "' (" + io::unknown_gpu_hint(*cat, r.gpu) + ")");
  if (!r.model.empty() && !cat->find_model(r.model))
    return unknown_name(ctx, "--model", "model", r.model, cat->model_names(), "flopcast catalog models");
  std::string why;
  const auto t = app::make_scenario_template(*cat, r, why);
  if (!t) return ctx.fail(kUsage, why);
  if (!write_output(ctx, o.out, app::template_yaml(*t, *cat))) return;
  if (o.out.path.empty()) return;
  ctx.out << "wrote " << o.out.path << ": " << t->form.name << ", tp " << t->form.tp << " pp " << t->form.pp << " dp "
          << t->form.dp
          << (t->headroom ? ""
              : t->fits   ? " (leaves too little HBM free: see the file's header)"
                          : " (does not fit: see the file's header)")
          << "\n"
          << "next: flopcast simulate " << o.out.path << "\n";
}

}  // namespace

void register_init(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<InitOpts>();
  auto* cmd = app.add_subcommand("init", "Write a first scenario, commented key by key, that simulate runs as is");
  cmd->add_option("--gpu", o->request.gpu, "GPU type (flopcast catalog gpus; default H800)")->type_name("GPU");
  cmd->add_option("--model", o->request.model, "Model preset (flopcast catalog models; default llama3-8b)")
      ->type_name("MODEL");
  cmd->add_option("--gpus", o->request.gpus, "GPUs of the job (default 64)")
      ->type_name("N")
      ->check(CLI::Range(1, 1'000'000));
  add_out_flag(*cmd, o->out, "Write the scenario to FILE instead of standard output");
  add_force_flag(*cmd, o->out.force, "Overwrite FILE if it exists");
  cmd->callback([&ctx, o] { run_init(ctx, *o); });
}

}  // namespace flopcast::cli
