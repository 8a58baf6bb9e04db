"""posteriordb posteriors of RABVI's Section 7.2 (Table C.1): data, reference draws, registry.

RABVI (Welandawe, Andersen, Vehtari & Huggins 2024, Section 7.2 and Table C.1) runs its
experiments on 18 posteriors of posteriordb (stan-dev/posteriordb). The files this module
reads were copied, unchanged, from that repository at commit
28f8d3d6e975315f42aa274a8399f21e07a43b30 (2025-04-29, "Merge pull request #288 ... v1.0")
into ``data/posteriordb/`` (same relative paths as under ``posterior_database/``); see
``data/posteriordb/README.md`` for licence (BSD-3) and provenance. Nothing is downloaded: each
file's sha256 is recorded in `SHA256` and checked on every read; a missing file or a mismatch
raises `PosteriorDBFileError`.

Reference posteriors (``reference_posteriors/draws``) are 10 chains x 1,000 draws (Stan NUTS,
thinned by 10) of the *constrained* parameters, with their parameter names. Not every
posterior of Table C.1 has reference draws:

- ``dogs-dogs`` and ``dogs-dogs_log``: posteriordb has no reference posterior;
- ``eight_schools-eight_schools_centered`` shares the non-centred model's reference (the same
  posterior of (mu, tau, theta), posteriordb's ``reference_posterior_name``);
- ``mcycle_gp-accel_gp``: the draws file is absent from the snapshot we could fetch (the largest
  files of the snapshot are not stored); its summary statistics (mean and mean of squares of
  every parameter, from the same 10,000 draws) are brought in instead, so `reference_moments`
  gives its means and sds;
- ``diamonds-diamonds``: its draws file (2.1 MB zipped) is not committed, to keep every tracked file
  under 2 MiB; posteriordb's summary statistics of the same draws stand in, as for mcycle_gp.

Table C.1's "Dimensions" count the constrained parameters (posteriordb's ``dimensions``), e.g.
6 for ``hmm_example`` (two 2-simplexes and two means), whose unconstrained dimension is 4.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. JMLR 25. (RABVI; Section 7.2, Table C.1.)
M. Magnusson, J. Torgander, P.-C. Bürkner, L. Zhang, B. Carpenter, A. Vehtari (2025).
posteriordb: testing, benchmarking and developing Bayesian inference algorithms. AISTATS.
"""
from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

from lsvi.papers.rabvi import declared_posteriors
from lsvi.pipeline.paths import resolve

PDB_DIR = "data/posteriordb"  # relative to the repository root
PDB_COMMIT = "28f8d3d6e975315f42aa274a8399f21e07a43b30"


class PosteriorDBFileError(RuntimeError):
    """A posteriordb file is missing or its sha256 differs from the recorded one."""


class Posterior(NamedTuple):
    """One row of Table C.1: posteriordb name, RABVI's short name, Table C.1's dimension
    (constrained parameters), posteriordb's model, data and reference names (``reference``
    None when posteriordb has none), and whether the reference is draws or moments only. ``declaration``: the
    `declared_posteriors.PosteriorDeclaration` of a posterior declared in ``config/posteriors/`` (None for Table
    C.1's)."""

    name: str
    short: str
    table_dim: int
    model: str
    data: str
    reference: str | None
    reference_kind: str  # "draws", "moments" (summary statistics only) or "none"
    description: str
    declaration: object = None  # declared_posteriors.PosteriorDeclaration, for a declared posterior


POSTERIORS: dict[str, Posterior] = {p.name: p for p in (
    Posterior("arK-arK", "arK", 7, "arK", "arK", "arK-arK", "draws", "AR(5) time series"),
    Posterior("bball_drive_event_0-hmm_drive_0", "bball_0", 8, "hmm_drive_0", "bball_drive_event_0",
              "bball_drive_event_0-hmm_drive_0", "draws", "Hidden Markov model"),
    Posterior("bball_drive_event_1-hmm_drive_1", "bball_1", 8, "hmm_drive_1", "bball_drive_event_1",
              "bball_drive_event_1-hmm_drive_1", "draws", "Hidden Markov model"),
    Posterior("diamonds-diamonds", "diamonds", 26, "diamonds", "diamonds", "diamonds-diamonds", "moments",
              "Log-Log"),
    Posterior("dogs-dogs", "dogs", 3, "dogs", "dogs", None, "none", "Logistic mixed-effects"),
    Posterior("dogs-dogs_log", "dogs_log", 2, "dogs_log", "dogs", None, "none", "Logarithmic mixed-effects"),
    Posterior("earnings-logearn_interaction", "earnings", 5, "logearn_interaction", "earnings",
              "earnings-logearn_interaction", "draws", "Log-linear"),
    Posterior("eight_schools-eight_schools_noncentered", "8schools_nc", 10, "eight_schools_noncentered",
              "eight_schools", "eight_schools-eight_schools_noncentered", "draws", "Non-centered hierarchical"),
    Posterior("eight_schools-eight_schools_centered", "8schools_c", 10, "eight_schools_centered",
              "eight_schools", "eight_schools-eight_schools_noncentered", "draws", "Centered hierarchical"),
    Posterior("garch-garch11", "garch", 4, "garch11", "garch", "garch-garch11", "draws", "GARCH(1,1) time series"),
    Posterior("gp_pois_regr-gp_pois_regr", "gp_pois_regr", 13, "gp_pois_regr", "gp_pois_regr",
              "gp_pois_regr-gp_pois_regr", "draws", "Gaussian process Poisson regression"),
    Posterior("gp_pois_regr-gp_regr", "gp_regr", 3, "gp_regr", "gp_pois_regr", "gp_pois_regr-gp_regr", "draws",
              "Gaussian process regression"),
    Posterior("hmm_example-hmm_example", "hmm_example", 6, "hmm_example", "hmm_example",
              "hmm_example-hmm_example", "draws", "Hidden Markov model"),
    Posterior("hudson_lynx_hare-lotka_volterra", "hudson_lynx", 8, "lotka_volterra", "hudson_lynx_hare",
              "hudson_lynx_hare-lotka_volterra", "draws", "Lotka-Volterra"),
    Posterior("low_dim_gauss_mix-low_dim_gauss_mix", "low_dim_gauss_mix", 5, "low_dim_gauss_mix",
              "low_dim_gauss_mix", "low_dim_gauss_mix-low_dim_gauss_mix", "draws", "Two-dimensional Gaussian mixture"),
    Posterior("mcycle_gp-accel_gp", "mcycle_gp", 66, "accel_gp", "mcycle_gp", "mcycle_gp-accel_gp", "moments",
              "Gaussian process"),
    Posterior("nes2000-nes", "nes2000", 10, "nes", "nes2000", "nes2000-nes", "draws", "Multiple predictor linear"),
    Posterior("sblrc-blr", "sblrc", 6, "blr", "sblrc", "sblrc-blr", "draws", "Linear"),
)}
SHORT = {p.short: p.name for p in POSTERIORS.values()}

# sha256 of every file under data/posteriordb/ (paths relative to it), checked on read.
SHA256: dict[str, str] = {
    "data/data/arK.json.zip": "6f2acbacb04655927bfc9173c42e51fc330bf08c6184242a62b7e39c22abe410",
    "data/data/bball_drive_event_0.json.zip": "6bee0a0bb09619784dcaa39ad5c7141626745df03eada28e144d14590f038117",
    "data/data/bball_drive_event_1.json.zip": "5b4332702c475f94b2d1c651e9ae1bebf155e761f2cc6683879db50129c70f4d",
    "data/data/diamonds.json.zip": "127d44a642f954b707bec2d82725e168d57a412d59487708794d4a17097f26ba",
    "data/data/dogs.json.zip": "afe0a4a0f7508de3edd7ac52db9370edc744fbfaf4ec857629912d20cb3ed75a",
    "data/data/earnings.json.zip": "06a67aa61a99d59aee057486dae51ffad6b4f887e7f8f17733739cf893af312f",
    "data/data/eight_schools.json.zip": "8e37cc01fe05b0e1779255e9bd386261f3d61daf7f75f02f72f38cdc9750531c",
    "data/data/garch.json.zip": "056100504a96a72ee6be6af80228d26189dea7343a30df6ecfefac70cc9b3957",
    "data/data/gp_pois_regr.json.zip": "9aaaa9d5694b74e2aefa6d0bd2f0a48637fcb4d455a74b33985e58154f285da9",
    "data/data/hmm_example.json.zip": "8c346cc7627db1b5614b1eacb81ab9b0926aa63071ba2f3b6d6ec3b492892787",
    "data/data/hudson_lynx_hare.json.zip": "36d116efc116fee9c9e7286df5545cbf11d08171c4f48b84476740464a4e33ec",
    "data/data/low_dim_gauss_mix.json.zip": "9b5ea284321417a7816b0426a0c96788a6824e6ceb4ec4ecd89493779720b8f9",
    "data/data/mcycle_gp.json.zip": "159ed1327b350374e5e299e94cc257f6b9b7428da90658a37233b24aedcf7f65",
    "data/data/nes2000.json.zip": "4170d5780771b54b763315b5c21772befd4ca208c62d23424535f4b4af347439",
    "data/data/sblrc.json.zip": "81990278b8762ac79244afcd470861560c7b28e34e411ce6da814e6f632a1b81",
    "data/info/arK.info.json": "292adf486d5e163eadf927962fb981082a37b1d96336af0293719f1e0028948e",
    "data/info/bball_drive_event_0.info.json": "4ca0b8db15589018ee7aaa57977ff032e4aad00c7d2af6ec0cb583413e0c0adf",
    "data/info/bball_drive_event_1.info.json": "e4ac95b4a1b40614e30a3b138cefb898c3b9bbcde4aeef89cfb462b38c62989f",
    "data/info/diamonds.info.json": "e6cfaeea0e2398cc0682413242a644c4d77f6a4345908bdbfb0a4370786fcdb7",
    "data/info/dogs.info.json": "21c5ead94edb8ac99dba2180bb4fe38f3f7fb95825320badb3555622664c0c44",
    "data/info/earnings.info.json": "03a7dd7e06d1dc57fb6260e1cc295989ac34fc0abb6d5660533a2cf235a1aa82",
    "data/info/eight_schools.info.json": "57fdc54af949cea0c4ccb73fb33210187c272d8918630ccabbb51961a9f56a3f",
    "data/info/garch.info.json": "48dfa713a271fda6f052de6c481c9e27e75cb334f81c9367f12abb160e7ac551",
    "data/info/gp_pois_regr.info.json": "a85fa6ba6049f942036e2905acb33b8373bf784c5b09c6df933bd918b303afc6",
    "data/info/hmm_example.info.json": "f5642862c99ef3583996773e9c4d2a1b199005dc87d143b6abe39e0f1c811447",
    "data/info/hudson_lynx_hare.info.json": "b43461ed38bf504902d63abe103613db69c458bdcab5f8a4ce4cf7611b826f90",
    "data/info/low_dim_gauss_mix.info.json": "cb1c733feaa3aa9f040096c2f03305984073707a6b62752ceefec97cdb08aee7",
    "data/info/mcycle_gp.info.json": "a40a494ee3426f5a7ee4be116a978130c59e3fcc9dd98ef1f06ca596823d51a0",
    "data/info/nes2000.info.json": "80cb5699d2edb91fbd8577c10c0ce4728192541fc2aeec016f81f6fc3470a5ab",
    "data/info/sblrc.info.json": "e466ad418e9db17efbcaab27260eb5bc03fff6dde2a54e01e9594d93b675e4a6",
    "models/info/accel_gp.info.json": "dd77aab77ff3f2c76ef2cec7b98154c74b59dab83fb391f097ec31fadba158d4",
    "models/info/arK.info.json": "6d4f0eb5315cc07766fb2ef79ccad7ba62171b09392c4feb5bbed5d89b353e28",
    "models/info/blr.info.json": "9a28784062b135b2cb135a3cde1fa31c8ad873644517cda7516e66005fb7cd78",
    "models/info/diamonds.info.json": "f5edb09ac30bde25142482145d9f029446b37b10b5be9b35bce34d1d93bb41f1",
    "models/info/dogs.info.json": "080722e157635d9ad838045864b97179531a2666df71c3c71e977e58c06b4507",
    "models/info/dogs_log.info.json": "351d4487c27872fde0e5c2422703f51e73cc007a2c74391937dfdbfa1386079d",
    "models/info/eight_schools_centered.info.json": "f90fbcb8a7edf97c010dfa9e92b3977baf47b2a63fca4ed0c1ac8ccd54cad83c",
    "models/info/eight_schools_noncentered.info.json": "bca8c075e978248c1b844b8a8b457093870fbed3bdc074d91d266089a1fae626",
    "models/info/garch11.info.json": "3d29b38447877d86a689d845435dcd14de44521700e1ed79d814796c031a7ee5",
    "models/info/gp_pois_regr.info.json": "6b41f5b78b9f968184cdbedbadb594481da750ebec8190f3023ecf9e655adf48",
    "models/info/gp_regr.info.json": "40350388e943b7716ed35132de3a5e35d79c614220a154eb91ffde456c1eee4f",
    "models/info/hmm_drive_0.info.json": "58a920df66d693cca3f2c403a6b86bd6cdd4298d233f28d1299b9485ab95a6d6",
    "models/info/hmm_drive_1.info.json": "c2044c84bc93ddda789e49a32799b8be6ef732adaa3e84e45b91e1506a34cd37",
    "models/info/hmm_example.info.json": "63ee68d822f0fd11986d0b97ee3f2bcb2eb3dc3ceb15bec685989937803bbc9a",
    "models/info/logearn_interaction.info.json": "f34723d87a4819b55f757289d41bdfb09f5273f51ab954b25e298bcdc2075783",
    "models/info/lotka_volterra.info.json": "d6b9d3f71d81bf9b52001865275bc7727114e4514be6e14427084106c3afada3",
    "models/info/low_dim_gauss_mix.info.json": "caeafa22b6fdd684a0a01760bde223d3e4ac423543f082c4385a77a69e16a2ea",
    "models/info/nes.info.json": "019f6119839cf036b20fb4a721ccbfe28049d1ba5a2d720f28fa7d1bcee29bcb",
    "models/stan/accel_gp.stan": "a65f0d579c6feb398e345ebe37dbb88017a7ecc00f199f6b07d3377cac419835",
    "models/stan/arK.stan": "fd5c71a891f648de3b9b65e2a65885c974fd9478b0a137b6b229f76ff4e01de6",
    "models/stan/blr.stan": "e6407c4391ab11c0b59f17f3a04132df87aa69b7dae459e173036f16f9e8b161",
    "models/stan/diamonds.stan": "b499b08e74598f65a5db338ea31cb9db868d1d56a6f580ddf28280dbe7425657",
    "models/stan/dogs.stan": "bc4c096706d2bb0558cdd88f171ccafda252d7a62b3cd7d1210642c3508b613a",
    "models/stan/dogs_log.stan": "f0257153c50d7ef91d9958607c159ae9097d622e3d5ed9778cd3be60fd91b56b",
    "models/stan/eight_schools_centered.stan": "ccaf2d7beed22602f62f276cd4096194ab5de5b5c1d6bb2bae9a3655a3845c05",
    "models/stan/eight_schools_noncentered.stan": "b28d5326b1936cce0014c98c2591d1ba5c1d21987ea5a5d0d9c074c6d6ce9253",
    "models/stan/garch11.stan": "bbfe1929a9dbf6f5a4066f6099d90fc8c3e1bf1c65e1072b47af19534c60a679",
    "models/stan/gp_pois_regr.stan": "d44142b5a950cfa68302de8d14c57e0ef0f9bcb7069375d22a74f84b7f78c270",
    "models/stan/gp_regr.stan": "bfbba64339a06d6ca5e0619aa0e3bffee2865504ee00768dd999066182db9873",
    "models/stan/hmm_drive_0.stan": "febb25a020c125d594c0c39058e68847fbfe49c20f80ec3c6ea0851a3b8f75e1",
    "models/stan/hmm_drive_1.stan": "295e47fe6cf70adb9c16af0697fb6f3803aad993c3ee800a34e9b437883abb75",
    "models/stan/hmm_example.stan": "8ebe19f3469e97153177d69c9dea248207278cc6f3d1d16885f83a791b11c476",
    "models/stan/logearn_interaction.stan": "44c458ff3828043954961741018ee98c56bc14716d6e93dc046c31499e40c7fb",
    "models/stan/lotka_volterra.stan": "f1cb4dda6af07ea721d5a38c6cbe8e3b60f7d48294db0374f331dc9803fe4328",
    "models/stan/low_dim_gauss_mix.stan": "b94ee44ab73502a0053c4a52b7e9d582ca4f466994d7beef4a4e606ff8582344",
    "models/stan/nes.stan": "260e7acec9bef905cae306ff6defb97e525c116f018aba9c687af154c10c8e70",
    "posteriors/arK-arK.json": "b1875b9c423623bab2193adde1dd855f760537a698823b23c7762169a4021b9f",
    "posteriors/bball_drive_event_0-hmm_drive_0.json": "9010c46feb5445ae0c2bbbc631b3ac784eb689289483fe25c3703bee9d4ccc69",
    "posteriors/bball_drive_event_1-hmm_drive_1.json": "a726aa57ce3606af2be7f4bed4f610d7ba7c8743930014416020b7b5e80c4a39",
    "posteriors/diamonds-diamonds.json": "56968e68f0d31e2db24ce9742f2399da885640fe2947930bcfd25e3f88a0618c",
    "posteriors/dogs-dogs.json": "2a7520cce55e7e45f13bb34b750f7a0245999324d9aa253f8529f2eacc8426f5",
    "posteriors/dogs-dogs_log.json": "b85e6700fc4d36421721ac52597cb6600becac507ab72e753ffb04f791db33bc",
    "posteriors/earnings-logearn_interaction.json": "b5c0dffd2e17e4a3ac1a467c44decdf5c0c210e9c00f110cb79f5097924fe8d3",
    "posteriors/eight_schools-eight_schools_centered.json": "d7f70a3138629d74a20890142ac6737e5bcf8d70c0221cf1cfe2a4470b3ef7cc",
    "posteriors/eight_schools-eight_schools_noncentered.json": "d80278a50b8423fe605ed4afb40c5d638d72e559385b7b4578b67dc3f4f17f79",
    "posteriors/garch-garch11.json": "7043c8f387028b70ab69705a4abb9293c48dcfbea6273ed1c279502aaa1443fd",
    "posteriors/gp_pois_regr-gp_pois_regr.json": "b3d6a27dc2a76a2d807c0d3b7cf35879b3bd251556e7fd14daa6e13eb41f01a8",
    "posteriors/gp_pois_regr-gp_regr.json": "43430c9b72df8a985356b382de7ee814f216726f69c3b2962c12d3331c67c25d",
    "posteriors/hmm_example-hmm_example.json": "62da05f86d6a0f25a562e8866256abaaaa273bdcac1df2cf896ddc624e794b50",
    "posteriors/hudson_lynx_hare-lotka_volterra.json": "486a5b2b54d5431817847714d2b3839b0a7eaf20ba09fd3a90b844c6f6c0d47f",
    "posteriors/low_dim_gauss_mix-low_dim_gauss_mix.json": "deac2d6d6b4fe746821c9acc58c4fe9e2deb07537f9790d7d8f55c85acf019a3",
    "posteriors/mcycle_gp-accel_gp.json": "7537ba6ced3f942b2df1b0f43406b64472a7017a2d09834772dad14359ce120d",
    "posteriors/nes2000-nes.json": "48641f834c1e22a26048f0d629ab690db14e37cedc3d9b6ea87662bb5e13de55",
    "posteriors/sblrc-blr.json": "7ffa016f31c8bab0ef0a1be2d5d876be27cc0b337f30c4a9d063caa482f6fe6a",
    "reference_posteriors/draws/draws/arK-arK.json.zip": "7ddb947e6c1ac5380f9c1e1fa101833a1236ef03de30f2cf5ece7b5b71841530",
    "reference_posteriors/draws/draws/bball_drive_event_0-hmm_drive_0.json.zip": "6f35a3d930c3f031cbe44fac75ade1207794b535cdff1641c17fa8592d251330",
    "reference_posteriors/draws/draws/bball_drive_event_1-hmm_drive_1.json.zip": "ca7b6d8d5d7cbeaa669781b9ad596f6f3b6e6619d574aad5b0efed289b2529eb",
    "reference_posteriors/draws/draws/earnings-logearn_interaction.json.zip": "c34de19c290f25513686448cc1b0caff8248c97a1e47b5646d2af1d1f254707b",
    "reference_posteriors/draws/draws/eight_schools-eight_schools_noncentered.json.zip": "0858641e630c877103dba2b78beaf6bc1f39435fc43d2894c4dff5d609c7a264",
    "reference_posteriors/draws/draws/garch-garch11.json.zip": "5a56df72455394fec4bca2b8186432be76c8b8ecabfa43eff15bf19308edbf18",
    "reference_posteriors/draws/draws/gp_pois_regr-gp_pois_regr.json.zip": "0e8b39f525d6723ac6b0972fcf27d54185893825174ed8e7eec468d25fa8b7e8",
    "reference_posteriors/draws/draws/gp_pois_regr-gp_regr.json.zip": "df89f5011d9518b06c95a631c258ce03f4818b78deb40ed069cfd1d70074c8bb",
    "reference_posteriors/draws/draws/hmm_example-hmm_example.json.zip": "cd67e28247da25233d79d09df235075c6603735e45c28fdfa76125e515ece3cf",
    "reference_posteriors/draws/draws/hudson_lynx_hare-lotka_volterra.json.zip": "1d2124d283c104fb8faeb8c65b68e3fa22e39665accdac95979238587f85314b",
    "reference_posteriors/draws/draws/low_dim_gauss_mix-low_dim_gauss_mix.json.zip": "422de750b20aef29c7b86f6bfa88dd9759050b6ffeb3588c004d6a4861c1e776",
    "reference_posteriors/draws/draws/nes2000-nes.json.zip": "1b62971bd0ee49024afd2e77a3e0e2a10729a6b0ecf5d801f51233481b48cd74",
    "reference_posteriors/draws/draws/sblrc-blr.json.zip": "44f876cf35a038fcd1fd13fb19bbadf04b4308618ad41390050ae8b014a4592d",
    "reference_posteriors/draws/info/arK-arK.info.json": "4b5d48d7b01e901f033199cf22a36c5107428ecde74babeb5603b217319a2484",
    "reference_posteriors/draws/info/bball_drive_event_0-hmm_drive_0.info.json": "604a923a12a8c1f2c7859d8c4fea365b4bfd62856a898693da78bd257b9767ff",
    "reference_posteriors/draws/info/bball_drive_event_1-hmm_drive_1.info.json": "9d8bb3d51594db273a210713bc8568363095c7392eb74918ac1cc738412ebe76",
    "reference_posteriors/draws/info/diamonds-diamonds.info.json": "ee586b790827efdb178212452b85d658a985660d3ba2d53a58c34789cf829775",
    "reference_posteriors/draws/info/earnings-logearn_interaction.info.json": "e93aa243c7a0cb984d7f0eb4ac107ed63ec46da8c8134bc32911ec02aa4f02cc",
    "reference_posteriors/draws/info/eight_schools-eight_schools_noncentered.info.json": "2644206c0126c99a59d611be8a43a3ddde7a4d1b6b5d2d18a4e44feba3e46743",
    "reference_posteriors/draws/info/garch-garch11.info.json": "e7dfa2f9d4ac198e9058af2d09fd649ded68e3199f4fc068d09f3d8321514df6",
    "reference_posteriors/draws/info/gp_pois_regr-gp_pois_regr.info.json": "05f36fbc5dd0b304da81f060fcd927baa8b3e041029bf365a7dcbcfcd3796e78",
    "reference_posteriors/draws/info/gp_pois_regr-gp_regr.info.json": "3185f345f949bb411e6d7a93191aa23a32a9ba3baa010e1c76d4b61c554bae5b",
    "reference_posteriors/draws/info/hmm_example-hmm_example.info.json": "2cfe42fee284e178aef7b1c4960da39af1840106ae5a4de522e3eec2f163f6dd",
    "reference_posteriors/draws/info/hudson_lynx_hare-lotka_volterra.info.json": "e41df15b636ca8bf1624db5411e6dfa8a6197fadfdc956fd7201898b56dfaa00",
    "reference_posteriors/draws/info/low_dim_gauss_mix-low_dim_gauss_mix.info.json": "8d2122bf29e7dc91e73066ce9385c24b8c1626cf7c3cbe7ecbf2d446bc73c0ed",
    "reference_posteriors/draws/info/mcycle_gp-accel_gp.info.json": "1f1192e57766cd6253060dd649739bc6feb8471dd930d2c27d6f92c74246b3e0",
    "reference_posteriors/draws/info/nes2000-nes.info.json": "ec7c746919254945c663453734d194ea006c7da6541f1c9a13734436301f94b9",
    "reference_posteriors/draws/info/sblrc-blr.info.json": "9f2fd884ab4e029e95bf366e480805283f41b079e71a1e3107d5f61674905909",
    "reference_posteriors/summary_statistics/mean_squared_value/info/diamonds-diamonds.info.json": "b8703ff83246df67e27b1919288f11f87a5e0b3270e1ae907d13680048f5472b",
    "reference_posteriors/summary_statistics/mean_squared_value/mean_squared_value/diamonds-diamonds.json": "51aaf0abc900784923a27ce1f85c38b2d8839c9d5f732924cd159ea17ef32504",
    "reference_posteriors/summary_statistics/mean_value/info/diamonds-diamonds.info.json": "e7c01516862c11dc7986407f7890b987e881067cce67016e81f914e7d1b29114",
    "reference_posteriors/summary_statistics/mean_value/mean_value/diamonds-diamonds.json": "a9b31a6fb87721f589f5f6481c24ce2118d638a11d768913daf5da6ccb85733b",
    "reference_posteriors/summary_statistics/mean_squared_value/info/mcycle_gp-accel_gp.info.json": "12a5b13d91ab20066b5753677b8c1ad21900e05e35da9e4af7cb8dcb63cf8675",
    "reference_posteriors/summary_statistics/mean_squared_value/mean_squared_value/mcycle_gp-accel_gp.json": "3d5e642fb1e949afd4c924a3ba3a30abafc472c744e501bf57941d70e57edfa7",
    "reference_posteriors/summary_statistics/mean_value/info/mcycle_gp-accel_gp.info.json": "f084daf69dbe3b1993999bbfb4587ff171b575b7e59f3d19c0d560aacd5c27c6",
    "reference_posteriors/summary_statistics/mean_value/mean_value/mcycle_gp-accel_gp.json": "3cc444329e5b3d051570d9edab2ef3dd1d9a86cfe85a63e0ecfbaf661c18a1c3",
}


def posterior(name: str) -> Posterior:
    """The registry entry of ``name`` (posteriordb name, e.g. ``"dogs-dogs"``, or Table C.1's
    short name, e.g. ``"8schools_nc"``), else of a posterior declared in ``config/posteriors/<name>.yaml`` (or a
    YAML path; `lsvi.papers.rabvi.declared_posteriors`)."""
    key = SHORT.get(name, name)
    if key in POSTERIORS:
        return POSTERIORS[key]
    if declared_posteriors.locate(name) is None:
        raise KeyError(f"{name!r} is neither one of Table C.1's posteriors ({', '.join(sorted(SHORT))}) nor declared "
                       f"in config/posteriors/ ({', '.join(declared_posteriors.available()) or 'none'})")
    d = declared_posteriors.read(name)
    p = d.dimension if d.dimension is not None else 0
    return Posterior(d.name, d.name, p, d.model, d.name, None if d.reference is None else d.name,
                     "none" if d.reference is None else "draws", d.description, d)


def read_bytes(relpath: str, root: str | Path = PDB_DIR) -> bytes:
    """The bytes of ``<root>/<relpath>`` after checking its sha256 against `SHA256`."""
    if relpath not in SHA256:
        raise PosteriorDBFileError(f"{relpath}: not a recorded posteriordb file")
    path = resolve(root) / relpath
    if not path.is_file():
        raise PosteriorDBFileError(f"{path}: missing; it ships with the repository (data/posteriordb/README.md)")
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != SHA256[relpath]:
        raise PosteriorDBFileError(f"{path}: sha256 {digest} differs from the recorded {SHA256[relpath]}")
    return raw


def _json(relpath: str, root: str | Path = PDB_DIR):
    raw = read_bytes(relpath, root)
    if relpath.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            (member,) = z.namelist()
            raw = z.read(member)
    return json.loads(raw)


def verify_all(root: str | Path = PDB_DIR) -> int:
    """Check every recorded file; returns their number (raises on the first failure)."""
    for relpath in SHA256:
        read_bytes(relpath, root)
    return len(SHA256)


def load_data(name: str, root: str | Path = PDB_DIR) -> dict[str, np.ndarray | int | float]:
    """The posterior's data (posteriordb ``data/data/<data>.json.zip``): lists become arrays."""
    p = posterior(name)
    if p.declaration is not None:
        return declared_posteriors.load_data(p.declaration)
    raw = _json(f"data/data/{p.data}.json.zip", root)
    return {k: (np.asarray(v) if isinstance(v, list) else v) for k, v in raw.items()}


def stan_code(name: str, root: str | Path = PDB_DIR) -> str:
    """posteriordb's Stan program of the posterior (documentation of what the JAX models translate)."""
    return read_bytes(f"models/stan/{posterior(name).model}.stan", root).decode()


class Reference(NamedTuple):
    """Reference draws: ``draws`` (chains, draws, p) of the constrained parameters ``names``
    (p,), in posteriordb's order; ``info`` is the reference's info JSON (sampler settings,
    ESS, R-hat)."""

    names: list[str]
    draws: np.ndarray
    info: dict

    @property
    def flat(self) -> np.ndarray:
        """(S, p) draws, chains concatenated."""
        return self.draws.reshape(-1, self.draws.shape[-1])

    def by_name(self) -> dict[str, np.ndarray]:
        """{name: (chains, draws)} draws of each constrained parameter."""
        return {n: self.draws[..., j] for j, n in enumerate(self.names)}


def has_reference_draws(name: str) -> bool:
    return posterior(name).reference_kind == "draws"


def load_reference(name: str, root: str | Path = PDB_DIR) -> Reference:
    """posteriordb's reference draws of ``name`` (10 chains x 1,000). Raises `LookupError` for
    the posteriors without reference draws (dogs, dogs_log: none; mcycle_gp: moments only)."""
    p = posterior(name)
    if p.reference_kind != "draws":
        raise LookupError(f"{p.name}: no reference draws ({p.reference_kind}); see lsvi.papers.rabvi.posteriordb")
    if p.declaration is not None:  # columns in the order of the model's parameters (what `constrain` returns)
        from lsvi.papers.rabvi.posteriordb_models import build

        names, draws = declared_posteriors.load_reference_draws(p.declaration, build(name).names)
        return Reference(names, draws, {"declaration": p.declaration.path})
    info = _json(f"reference_posteriors/draws/info/{p.reference}.info.json", root)
    chains = _json(f"reference_posteriors/draws/draws/{p.reference}.json.zip", root)
    names = list(info["diagnostics"]["diagnostic_information"]["names"])
    draws = np.stack([np.stack([np.asarray(c[n], float) for n in names], axis=-1) for c in chains])
    return Reference(names, draws, info)


class Moments(NamedTuple):
    """Reference means and sds (p,) of ``names``; ``mcse_mean`` (p,) their Monte Carlo standard
    errors; ``source``: "draws" (ArviZ on the draws) or "summary" (posteriordb's summary
    statistics, whose ``mcse_mean`` is used)."""

    names: list[str]
    mean: np.ndarray
    sd: np.ndarray
    mcse_mean: np.ndarray
    source: str


def mcse_mean(draws: np.ndarray) -> np.ndarray:
    """ArviZ's Monte Carlo standard error of the mean of each coordinate of ``draws`` (chains, draws, p)."""
    import arviz as az

    return np.asarray(az.mcse(az.convert_to_dataset(np.asarray(draws)), method="mean")["x"].values, float)


def reference_moments(name: str, root: str | Path = PDB_DIR) -> Moments:
    """Means, sds and their MCSE of the reference posterior (from the draws, or for mcycle_gp
    from posteriordb's summary statistics ``mean_value`` and ``mean_squared_value``)."""
    p = posterior(name)
    if p.reference_kind == "draws":
        ref = load_reference(name, root)
        mcse = mcse_mean(ref.draws)
        return Moments(ref.names, ref.flat.mean(0), ref.flat.std(0, ddof=1), mcse, "draws")
    if p.reference_kind == "moments":
        ss = "reference_posteriors/summary_statistics"
        m1 = _json(f"{ss}/mean_value/mean_value/{p.reference}.json", root)
        m2 = _json(f"{ss}/mean_squared_value/mean_squared_value/{p.reference}.json", root)
        if m1["names"] != m2["names"]:
            raise PosteriorDBFileError(f"{p.name}: the two summary files name different parameters")
        mean = np.asarray(m1["mean_value"], float)
        sd = np.sqrt(np.maximum(np.asarray(m2["mean_squared_value"], float) - mean**2, 0.0))
        return Moments(list(m1["names"]), mean, sd, np.asarray(m1["mcse_mean"], float), "summary")
    raise LookupError(f"{p.name}: posteriordb has no reference posterior")
