# The installed layout (GNUInstallDirs) and the Debian package (CPack). Included by the top-level
# CMakeLists.txt after the targets; the targets install themselves (cli/, gui/, quote_pdf/):
#
#   PREFIX/bin/flopcast, PREFIX/bin/flopcast-gui
#   PREFIX/lib/flopcast/flopcast-quote-pdf.so         loaded by `quote --format pdf` (cli/install_layout.hpp)
#   PREFIX/share/flopcast/data/                       the catalogs an installed flopcast reads, calibration runs
#   PREFIX/share/flopcast/scenarios/                  ready scenarios, sweeps, fleets, claims
#   PREFIX/share/man/man1/flopcast.1                  generated from the command line (cli/cli_reference.hpp)
#   PREFIX/share/bash-completion/completions/flopcast
#   PREFIX/share/zsh/vendor-completions/_flopcast     (PREFIX /usr; else share/zsh/site-functions)
#   PREFIX/share/doc/flopcast/                        README.md, CHANGELOG.md, docs/*.md

install(DIRECTORY "${PROJECT_SOURCE_DIR}/data/" DESTINATION "${FLOPCAST_INSTALL_DATA_DIR}"
        PATTERN "CMakeLists.txt" EXCLUDE)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/scenarios/" DESTINATION "${CMAKE_INSTALL_DATADIR}/flopcast/scenarios")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
if(EXISTS "${PROJECT_SOURCE_DIR}/CHANGELOG.md")
  install(FILES "${PROJECT_SOURCE_DIR}/CHANGELOG.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
endif()
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}" FILES_MATCHING PATTERN "*.md")

# zsh looks in vendor-completions for the system's packages (Debian's fpath) and in
# site-functions under any other prefix (zsh's own default); the choice is made at install time,
# when the prefix is known (`cmake --install --prefix`, CPack's /usr).
if(FLOPCAST_ZSH_COMPLETION_DIR)
  install(FILES "${FLOPCAST_REFERENCE_DIR}/_flopcast" DESTINATION "${FLOPCAST_ZSH_COMPLETION_DIR}")
else()
  install(CODE "
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
      set(_zsh_dir \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions\")
    else()
      set(_zsh_dir \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/zsh/site-functions\")
    endif()
    file(INSTALL DESTINATION \"\${_zsh_dir}\" TYPE FILE FILES \"${FLOPCAST_REFERENCE_DIR}/_flopcast\")")
endif()
install(FILES "${FLOPCAST_REFERENCE_DIR}/flopcast.1" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
install(FILES "${FLOPCAST_REFERENCE_DIR}/flopcast.bash" DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions"
        RENAME flopcast)

# The Debian package: `cpack` in the build folder writes flopcast_VERSION_ARCH.deb. Its
# dependencies are the shared libraries the installed programs and the PDF module link, as
# dpkg-shlibdeps finds them (package dpkg-dev).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME flopcast)
set(CPACK_PACKAGE_VENDOR "flopcast")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "flopcast simulates LLM training on GPU clusters from a model, a cluster and a parallel plan: step time, MFU, memory per GPU, where the time goes, the whole run with failures and checkpoints, and its cost under rental price lists. It searches plans, runs sweeps, simulates fleets, writes quotes and judges vendors' claims. flopcast (CLI) and flopcast-gui (Qt).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "flopcast developers")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
