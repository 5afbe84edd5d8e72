list(APPEND FLOPCAST_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/claim.cpp
  ${CMAKE_CURRENT_LIST_DIR}/claim_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/claims_evaluation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/claim_results.cpp
  ${CMAKE_CURRENT_LIST_DIR}/checkpoint_claims.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_claims.cpp
  ${CMAKE_CURRENT_LIST_DIR}/energy_claims.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hardware_claims.cpp
  ${CMAKE_CURRENT_LIST_DIR}/price_claims.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_claims.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verdict.cpp)
