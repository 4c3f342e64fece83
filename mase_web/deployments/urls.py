"""API routes of this app (mounted under /api/ by mase_web/urls.py)."""

from django.urls import path

from mase_web.api_routes import IdRouter
from mase_web.deployments.accept_proposal import AcceptProposalView
from mase_web.deployments.api import DecisionViewSet, DeploymentViewSet, EpisodeViewSet
from mase_web.deployments.conversation_api import ConversationViewSet, DeploymentConversationsView
from mase_web.deployments.evolution_api import (
    EvolveView,
    GenerationsView,
    IntentProposalsView,
    PolicyView,
    PromoteView,
    RollbackView,
)
from mase_web.deployments.lineage_export import LineageExportView
from mase_web.deployments.preview import FallbackPreviewView
from mase_web.deployments.roster import RosterView
from mase_web.deployments.scope_gate import ScopeGateView
from mase_web.deployments.shadow_api import ShadowView, StartShadowView
from mase_web.deployments.style_explore import StyleExploreView
from mase_web.deployments.task_stream import TaskStreamView

router = IdRouter()
router.register("deployments", DeploymentViewSet, basename="deployment")
router.register("episodes", EpisodeViewSet, basename="episode")
router.register("decisions", DecisionViewSet, basename="decision")
router.register("conversations", ConversationViewSet, basename="conversation")
# before the router's routes: "deployments/preview/" is not a deployment id
urlpatterns = [path("deployments/preview/", FallbackPreviewView.as_view(), name="deployment-preview")]
urlpatterns += [
    path("deployments/<int:pk>/generations/", GenerationsView.as_view(), name="deployment-generations"),
    path(
        "deployments/<int:pk>/generations/export/",
        LineageExportView.as_view(),
        name="deployment-generations-export",
    ),
    path(
        "deployments/<int:pk>/conversations/",
        DeploymentConversationsView.as_view(),
        name="deployment-conversations",
    ),
    path("deployments/<int:pk>/evolve/", EvolveView.as_view(), name="deployment-evolve"),
    path(
        "deployments/<int:pk>/generations/<int:number>/promote/",
        PromoteView.as_view(),
        name="deployment-promote",
    ),
    path("deployments/<int:pk>/rollback/", RollbackView.as_view(), name="deployment-rollback"),
    path("deployments/<int:pk>/shadow/", ShadowView.as_view(), name="deployment-shadow"),
    path(
        "deployments/<int:pk>/generations/<int:number>/shadow/",
        StartShadowView.as_view(),
        name="deployment-start-shadow",
    ),
    path("deployments/<int:pk>/evolution/", PolicyView.as_view(), name="deployment-evolution"),
    path("deployments/<int:pk>/style-explore/", StyleExploreView.as_view(), name="deployment-style-explore"),
    path("deployments/<int:pk>/scope-gate/", ScopeGateView.as_view(), name="deployment-scope-gate"),
    path(
        "deployments/<int:pk>/intent-proposals/",
        IntentProposalsView.as_view(),
        name="deployment-intent-proposals",
    ),
    path(
        "deployments/<int:pk>/intent-proposals/accept/",
        AcceptProposalView.as_view(),
        name="deployment-intent-proposals-accept",
    ),
]
urlpatterns += [  # a large team: an operator's roster and the task-stream console
    path("deployments/<int:pk>/roster/", RosterView.as_view(), name="deployment-roster"),
    path("deployments/<int:pk>/tasks/", TaskStreamView.as_view(), name="deployment-tasks"),
]
urlpatterns += router.urls
