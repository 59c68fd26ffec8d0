// The generator objects, one per file of this folder (generator.cc lists them in order).
#pragma once

#include "sched/algos/generator.h"

namespace weft::sched {

const Generator& RecursiveExchange();  // recursive_exchange.cc
const Generator& Ring();               // ring.cc
const Generator& CyclicShift();        // cyclic_shift.cc
const Generator& KaryTree();           // kary_tree.cc
const Generator& CopyIn();             // copy_in.cc
const Generator& OneShot();            // one_shot.cc
const Generator& ShmPipeline();        // shm_pipeline.cc
const Generator& SingleCopy();         // single_copy.cc
const Generator& ZeroCopy();           // zero_copy.cc
const Generator& PairwiseAllToAll();   // pairwise_alltoall.cc
const Generator& BruckAllToAll();      // bruck_alltoall.cc
const Generator& NodeAllToAll();       // node_alltoall.cc
const Generator& NodePairAllToAll();   // node_pair_alltoall.cc
const Generator& ScanDoubling();       // scan_doubling.cc

}  // namespace weft::sched
