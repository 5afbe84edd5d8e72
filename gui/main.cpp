// flopcast-gui: a thin entry point; everything lives in flopcast_gui_lib (gui_app.hpp).
#include "gui_app.hpp"

int main(int argc, char** argv) { return flopcast::gui::run_gui(argc, argv); }
